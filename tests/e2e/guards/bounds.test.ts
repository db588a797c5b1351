// Every number has bounds, from the one config schema: the real `bin/ralph` refuses a breaker
// threshold of 1e23 in .ralphrc or env and `--calls 99999999999999999999` before any agent call,
// naming the key or flag and the allowed range. Uses the built dist/ (npm run build).

import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

async function runRalph(rc: string, args: string[], env: Record<string, string> = {}) {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC + rc }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude({ calls: [{ statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] });
  cleanups.push(() => fake.cleanup());
  const result = await runCli('ralph', ['--max-loops', '1', ...args], { cwd: project.dir, env: { ...fake.env, ...env } });
  return { result, calls: fake.runs().length };
}

describe('bounds on every number', () => {
  it('CB_NO_PROGRESS_THRESHOLD=99999999999999999999999 in .ralphrc is an error naming the key, line and range', async () => {
    const { result, calls } = await runRalph('CB_NO_PROGRESS_THRESHOLD=99999999999999999999999\n', []);
    expect(result.code).toBe(1);
    expect(calls).toBe(0);
    expect(result.stderr).toMatch(/\.ralphrc:\d+.*CB_NO_PROGRESS_THRESHOLD.*expected a whole number from 0 to 10000, got "99999999999999999999999"/);
  });

  it('the same value in env is refused too', async () => {
    const { result, calls } = await runRalph('', [], { CB_NO_PROGRESS_THRESHOLD: '99999999999999999999999' });
    expect(result.code).toBe(1);
    expect(calls).toBe(0);
    expect(result.stderr).toContain('CB_NO_PROGRESS_THRESHOLD');
    expect(result.stderr).toContain('from 0 to 10000');
  });

  it('--calls 99999999999999999999 is refused, naming the flag and the range', async () => {
    const { result, calls } = await runRalph('', ['--calls', '99999999999999999999']);
    expect(result.code).not.toBe(0);
    expect(calls).toBe(0);
    expect(result.stderr).toContain('--calls: expected a whole number from 1 to 100000, got "99999999999999999999"');
  });

  it('--max-cost 1e9 is refused; the largest allowed value runs', async () => {
    const refused = await runRalph('', ['--max-cost', '1000000000']);
    expect(refused.calls).toBe(0);
    expect(refused.result.stderr).toContain('--max-cost: expected a number from 0 to 1000000');
    const allowed = await runRalph('', ['--max-cost', '1000000']);
    expect(allowed.calls).toBe(1);
  });
});
