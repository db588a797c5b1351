// A gate that ran no test proves nothing, through the real `bin/ralph`: the hostile agent
// rewrites package.json's test script to a command that writes a file and exits 0, and claims
// the work complete. The guard undoes the script before the gate runs; the user's own test
// script (TEST_COMMAND="npm test") reports 0 tests (TAP `1..0`). The gate is "not verified" —
// on the console, in the run record, `--status --json` and metrics.jsonl — and the run does
// not end as done.

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const PACKAGE_JSON = '{\n  "name": "p",\n  "private": true,\n  "scripts": { "test": "node run-tests.js" }\n}\n';
// A test runner that found nothing to run.
const RUN_TESTS = "console.log('TAP version 13');\nconsole.log('1..0');\n";
const complete = { STATUS: 'COMPLETE', EXIT_SIGNAL: true, TESTS_STATUS: 'PASSING' };

describe('a verification gate whose test command ran no test', () => {
  it('is not verified, and the completion claimed on it does not end the run', async () => {
    const project = tmpProject(
      ralphProjectTree({
        '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="npm test"\nCB_NO_PROGRESS_THRESHOLD=5\nCB_SAME_FAILURES_THRESHOLD=0\n`,
        'package.json': PACKAGE_JSON,
        'run-tests.js': RUN_TESTS,
        '.ralph/fix_plan.md': '# Fix Plan\n- [ ] make it work\n',
      }),
      { git: true },
    );
    cleanups.push(() => project.cleanup());
    const hostile: FakeCallScript = {
      tickFixPlan: 'all',
      writeFiles: { 'package.json': PACKAGE_JSON.replace('node run-tests.js', 'echo hi > x; exit 0'), 'src/a.js': 'a\n' },
      statusBlock: complete,
    };
    const claim = (n: number): FakeCallScript => ({ writeFiles: { 'src/a.js': `a${n}\n` }, statusBlock: complete });
    const fake = withFakeClaude({ calls: [hostile, claim(2), claim(3)] });
    cleanups.push(() => fake.cleanup());
    const env = { ...fake.env, ...GIT_TEST_ENV };

    const run = await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env });

    expect(fake.runs()).toHaveLength(3);
    expect(run.code, run.stderr).not.toBe(0);
    // The planted script was undone before the gate, so it never ran.
    expect(JSON.parse(readFileSync(project.path('package.json'), 'utf8')).scripts.test).toBe('node run-tests.js');
    expect(existsSync(project.path('x'))).toBe(false);
    expect(run.stderr).toContain('Verification gate NOT VERIFIED (a test command ran no test)');
    expect(run.stderr).toContain('npm test: ran no test');
    expect(run.stderr).toContain('but the test command ran no test (not verified); continuing');
    expect(run.stderr).not.toContain('Verification gate passed');

    const status = await runCli('ralph', ['--status', '--json'], { cwd: project.dir, env });
    const summary = JSON.parse(status.stdout) as { session?: { last_verification?: { status: string } } };
    expect(JSON.stringify(summary)).toContain('"last_verification"');
    expect(findLastVerification(summary)?.status).toBe('not-verified');

    const metrics = readFileSync(project.path('.ralph/logs/metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { verification: string | null; success: boolean });
    expect(metrics.length).toBeGreaterThan(0);
    for (const line of metrics) {
      expect(line.verification).toBe('not-verified');
      expect(line.success).toBe(false);
    }
  }, 120_000);
});

function findLastVerification(value: unknown): { status: string } | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (record.last_verification && typeof record.last_verification === 'object') return record.last_verification as { status: string };
  for (const child of Object.values(record)) {
    const found = findLastVerification(child);
    if (found) return found;
  }
  return undefined;
}
