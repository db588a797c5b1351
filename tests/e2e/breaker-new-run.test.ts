// The circuit breaker across runs, through the real `bin/ralph`: a new run counts its own loops
// without progress (an earlier run's count does not open the breaker at its first loop), and a
// failed login is not a loop without progress (after the login is fixed, ralph runs).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const idle: FakeCallScript = { resultText: 'Looked around, nothing changed.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };
const badLogin: FakeCallScript = { isError: true, exitCode: 1, resultText: 'Invalid API key · Please run /login' };

const cleanups = useCleanups();

function project(): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
  cleanups.push(() => p.cleanup());
  return p;
}

async function run(p: TmpProject, calls: FakeCallScript[], args: string[] = []): Promise<{ code: number | null; stderr: string }> {
  const f = withFakeClaude({ calls });
  cleanups.push(() => f.cleanup());
  const r = await runCli('ralph', args, { cwd: p.dir, env: f.env });
  return { code: r.code, stderr: r.stderr };
}

const breaker = (p: TmpProject) => JSON.parse(readFileSync(p.path('.ralph/.circuit_breaker_state'), 'utf8')) as Record<string, unknown>;

describe('the circuit breaker across runs', () => {
  it('a new run does not inherit the no-progress count of a run that ended at --max-loops', async () => {
    const p = project();
    const first = await run(p, [idle, idle], ['--max-loops', '2']);
    expect(first.code).toBe(3);
    expect(breaker(p)).toMatchObject({ consecutive_no_progress: 2 });

    // Threshold 3: the new run's own three idle loops open it, not its first.
    const second = await run(p, [idle, idle, idle, idle]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/ {2}Loops: +3\n/);
  });

  it('failed logins do not open the breaker: once the login works, ralph runs', async () => {
    const p = project();
    for (let i = 0; i < 3; i++) {
      const failed = await run(p, [badLogin]);
      expect(failed.code).toBe(1);
      // The failure is said once, and its fix once.
      expect(failed.stderr.match(/Invalid API key/g)).toHaveLength(1);
      expect(failed.stderr.match(/type \/login and sign in/g)).toHaveLength(1);
    }
    expect(breaker(p)).toMatchObject({ state: 'CLOSED', consecutive_no_progress: 0 });

    const fixed = await run(p, [{ writeFiles: { 'a.txt': 'a' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }], ['--max-loops', '1']);
    expect(fixed.code).toBe(3);
    expect(fixed.stderr).toMatch(/ {2}Loops: +1\n/);
  });
});
