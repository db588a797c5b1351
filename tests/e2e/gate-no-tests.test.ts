// A gate run that executed no test is not a pass: ralph's loop with TEST_COMMAND running
// a script of the project that runs three tests (TAP). The agent does the first item honestly,
// then rewrites the script to `exit 0` (or to a line that counts nothing), ticks the last item
// and claims completion. The gate's pass proves nothing: the log names the command, the
// completion is refused, and the run never ends as done. A single run goes through ralph's loop
// in the test's process (tests/helpers/ralph-in-process.ts); the two runs after each other, through
// the built bin/ralph.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const TESTS = 'echo "TAP version 13"\necho "ok 1 - parses"\necho "ok 2 - prints"\necho "ok 3 - round trips"\necho "1..3"\n';
const PLAN = '# Fix Plan\n- [ ] write the parser\n- [ ] write the printer\n';

const cleanups = useCleanups();

async function runWithRewrite(rewritten: string) {
  const project = tmpProject(
    ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="sh run-tests.sh"\n`, 'run-tests.sh': TESTS, '.ralph/fix_plan.md': PLAN }),
    { git: true },
  );
  cleanups.push(() => project.cleanup());
  const honest: FakeCallScript = {
    writeFiles: { 'src/parser.txt': 'parser\n', '.ralph/fix_plan.md': '# Fix Plan\n- [x] write the parser\n- [ ] write the printer\n' },
    statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
  };
  const cheat: FakeCallScript = {
    writeFiles: {
      'run-tests.sh': rewritten,
      'src/printer.txt': 'printer\n',
      '.ralph/fix_plan.md': '# Fix Plan\n- [x] write the parser\n- [x] write the printer\n',
    },
    statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
  };
  const claim: FakeCallScript = { writeFiles: { 'src/notes.txt': 'done\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } };
  const fake = withFakeClaude({ calls: [honest, cheat, claim] });
  cleanups.push(() => fake.cleanup());
  const result = await runRalphInProcess(project.dir, ['--max-loops', '4'], fake.env);
  const log = readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
  const status = JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as { exit_reason: string };
  return { result, log, exitReason: status.exit_reason };
}

// Not verified loop after loop, the run halts (the gate could not complete in 3 loops) or stops
// at its loop budget: never done.
function expectNotDone(ran: Awaited<ReturnType<typeof runWithRewrite>>): void {
  expect(ran.result.code, ran.result.stderr.slice(-1500)).not.toBe(0);
  expect(['max_loops_reached', 'stagnation_detected']).toContain(ran.exitReason);
}

describe('a gate run that executed no test is not a pass', () => {
  it('the script rewritten to `exit 0`: not verified, naming the command; the run does not end as done', async () => {
    const ran = await runWithRewrite('exit 0\n');
    expect(ran.log).toContain('Verification gate passed in');
    expect(ran.log).toContain('0 failing, 3 passing');
    expect(ran.log).toMatch(
      /Verification gate NOT VERIFIED \(a test command ran no test\) in [\d.]+s: 0 failing, 0 passing, 0 skipped \(sh run-tests\.sh: ran no test\)/,
    );
    expect(ran.log).toContain('the test command ran no test (not verified); continuing');
    expectNotDone(ran);
  });

  it('the script rewritten to print a line that counts nothing: a sharp drop from the last passing run, reported, and no pass', async () => {
    const ran = await runWithRewrite('echo "all good"\n');
    expect(ran.log).toContain('Verification gate NOT VERIFIED (far fewer tests than the last passing run)');
    expect(ran.log).toContain('(sh run-tests.sh: ran 0 of the 3 tests of the last passing run)');
    expect(ran.log).toContain('Completion claimed (plan_complete) but the test command ran no test (not verified); continuing');
    expectNotDone(ran);
  });
});

describe('the test count a pass is measured against survives a restart', () => {
  it('kept in the ledger: a new run whose script counts nothing is measured against the 3 tests of the last one', async () => {
    const project = tmpProject(
      ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="sh run-tests.sh"\n`, 'run-tests.sh': TESTS, '.ralph/fix_plan.md': PLAN }),
      { git: true },
    );
    cleanups.push(() => project.cleanup());
    const honest: FakeCallScript = {
      writeFiles: { 'src/parser.txt': 'parser\n', '.ralph/fix_plan.md': '# Fix Plan\n- [x] write the parser\n- [ ] write the printer\n' },
      statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
    };
    const fake = withFakeClaude({ calls: [honest] });
    cleanups.push(() => fake.cleanup());
    // The first run passes its 3 tests, then stops at its loop budget: the next ralph is a new run.
    const first = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });
    expect(first.code, first.stderr.slice(-1500)).toBe(3);
    const cheat: FakeCallScript = {
      writeFiles: {
        'run-tests.sh': 'echo "all good"\n',
        'src/printer.txt': 'printer\n',
        '.ralph/fix_plan.md': '# Fix Plan\n- [x] write the parser\n- [x] write the printer\n',
      },
      statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
    };
    const claim: FakeCallScript = { writeFiles: { 'src/notes.txt': 'done\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } };
    // The fake's call counter goes on: its second call is the second entry.
    fake.setScenario({ calls: [honest, cheat, claim] });
    const second = await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env: fake.env });
    const log = readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
    expect(log).toContain('(sh run-tests.sh: ran 0 of the 3 tests of the last passing run)');
    expect(second.code, second.stderr.slice(-1500)).not.toBe(0);
  });
});
