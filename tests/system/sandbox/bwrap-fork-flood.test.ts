// `ralph --sandbox bwrap`: an agent that starts processes without end (a fork flood) is stopped
// inside the sandbox by its process limit (prlimit --nproc), not by the machine running out;
// the call ends with the sandbox, and the run goes on to its next loop. Needs bubblewrap (as
// root, the agent runs as the project's owner).

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE_DIR, readCallLog, withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { prepareSandboxProject, requireBwrap } from '../../helpers/sandbox-tools.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => requireBwrap());

/** Forks up to 1,500 sleeping children, stops at the first refused fork, and writes how many it made. */
const FLOOD = [
  'import os, time',
  'n = 0',
  'for _ in range(1500):',
  '    try:',
  '        pid = os.fork()',
  '    except OSError:',
  '        break',
  '    if pid == 0:',
  '        time.sleep(120)',
  '        os._exit(0)',
  '    n += 1',
  "open('.ralph/probe/forked', 'w').write(str(n))",
].join('\n');

describe('ralph --sandbox bwrap: a fork flood', () => {
  it('is stopped by the process limit inside the sandbox, and the run goes on', async () => {
    const project = tmpProject(
      ralphProjectTree({
        '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS="Bash"\n`,
        '.ralph/fix_plan.md': '# Fix Plan\n- [ ] one\n',
        'flood.py': `${FLOOD}\n`,
      }),
      { git: true },
    );
    mkdirSync(project.path('.ralph/probe'), { recursive: true });
    const fake = withFakeClaude({
      calls: [
        {
          steps: [{ tool: 'Bash', input: { command: 'python3 flood.py > /dev/null 2>&1' }, exec: true }],
          statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
        },
        { tickFixPlan: 'all', writeFiles: { 'src/a.txt': 'a\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } },
      ],
    });
    cleanups.push(
      () => project.cleanup(),
      () => fake.cleanup(),
    );
    const env = {
      ...fake.env,
      ...GIT_TEST_ENV,
      FAKE_CLAUDE_STATE_DIR: project.path('.ralph/fake-state'),
      FAKE_CLAUDE_LOG: project.path('.ralph/fake-state/calls.jsonl'),
      SANDBOX_BWRAP_BIND: [fake.binDir, FAKE_CLAUDE_DIR, fake.scenarioPath].join(','),
      ...prepareSandboxProject(project, fake),
    };
    const r = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '3'], { cwd: project.dir, env });
    const forkedFile = project.path('.ralph/probe/forked');
    const forked = existsSync(forkedFile) ? Number(readFileSync(forkedFile, 'utf8')) : NaN;
    expect(forked, r.stderr.slice(-2000)).toBeGreaterThan(100);
    expect(forked).toBeLessThan(1024);
    // The second call came, and the run ended as the plan said.
    const calls = readCallLog(project.path('.ralph/fake-state/calls.jsonl')).filter((call) => call.prompt !== undefined);
    expect(
      calls.map((call) => call.exitCode),
      r.stderr.slice(-3000),
    ).toHaveLength(2);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
  }, 180_000);
});
