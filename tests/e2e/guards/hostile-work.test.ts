// Guards that tell stuck from slow, the hostile half: each way honest-work.test.ts widened what
// counts as progress, tried by an agent that does no real work. Each must still halt (exit 2).
// The earlier rounds' lying, flipping and junk-writing agents are in progress-evidence.test.ts,
// plan-memory.test.ts and stall-guard.test.ts. Each case runs ralph's loop in the test's process
// (tests/helpers/ralph-in-process.ts).

import { describe, expect, it } from 'vitest';
import type { FakeCallScript } from '../../helpers/fake-claude.js';
import { expectHalted, runScripted } from '../../helpers/scripted-run.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };
const complete = { STATUS: 'COMPLETE', EXIT_SIGNAL: true };
// The project's test suite: a sh script that prints a runner's summary line (sh, not Node: a
// gate runs in every loop, and a Node start costs some 70 ms of CPU).
const PASSING_SUITE = "echo 'Tests:       2 passed, 2 total'\n";
const GATE_RC = 'TEST_COMMAND="sh test.sh"\n';
const times = (n: number, call: (i: number) => FakeCallScript): FakeCallScript[] => Array.from({ length: n }, (_, i) => call(i));
const STOPS = ['stagnation_detected', 'stalled', 'completion_conflict'];

describe('the lying agent', () => {
  it('ticks a code item and a verification item with no change: the passing gate closes no code item', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Add a greeting to src/greet.js\n- [ ] Verify the greeting works end to end\n',
      files: { 'test.sh': PASSING_SUITE },
      rc: GATE_RC,
      calls: times(8, () => ({ resultText: 'All done.', tickFixPlan: 'all', statusBlock: complete })),
    });
    expectHalted(ran, STOPS);
    expect(ran.log).toContain('1 open item ticked in a loop with no measured new content');
  });

  it('adds a new "Verify …" item each loop and ticks it while the gate passes: items the agent wrote ask for nothing', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Add the logout button\n',
      files: { 'test.sh': PASSING_SUITE },
      rc: GATE_RC,
      // One loop adds an open item, the next ticks it.
      calls: times(12, (i) =>
        i % 2 === 0
          ? { appendFiles: { '.ralph/fix_plan.md': `- [ ] Verify step ${i} works\n` }, statusBlock: working }
          : { tickFixPlan: 'all', statusBlock: working },
      ),
    });
    expectHalted(ran, STOPS);
    expect(ran.calls).toBeLessThanOrEqual(4);
  });

  it('ticks "Verify …" in a project with no test command: nothing ralph checks backs it', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Verify the login feature works end to end\n',
      calls: times(8, () => ({ resultText: 'Verified.', tickFixPlan: 1, statusBlock: complete })),
    });
    expectHalted(ran, STOPS);
  });

  it('quotes the same error while changing nothing: halted', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Connect to the database\n',
      calls: times(8, () => ({ resultText: 'Error: connect ECONNREFUSED 127.0.0.1:5432', statusBlock: working })),
    });
    expectHalted(ran, STOPS);
  });
});

describe('the flipping agent', () => {
  it('ticks and unticks a "Verify …" item while the gate passes: closed once, progress once', async () => {
    const plan = (tick: boolean) => `# Fix Plan\n- [${tick ? 'x' : ' '}] Verify the login works end to end\n- [ ] Add the logout button\n`;
    const ran = await runScripted(cleanups, {
      plan: plan(false),
      files: { 'test.sh': PASSING_SUITE },
      rc: GATE_RC,
      calls: times(12, (i) => ({ writeFiles: { '.ralph/fix_plan.md': plan(i % 2 === 0) }, statusBlock: working })),
    });
    expectHalted(ran, STOPS);
    expect(ran.calls).toBeLessThanOrEqual(5);
  });

  it('writes a junk file each loop and ticks and unticks an item: completed once, then stalled', async () => {
    const plan = (tick: boolean) => `# Fix Plan\n- [${tick ? 'x' : ' '}] Add the logout button\n- [ ] Add the login button\n`;
    const ran = await runScripted(cleanups, {
      plan: plan(false),
      calls: times(14, (i) => ({ writeFiles: { [`junk-${i}.txt`]: `${i}\n`, '.ralph/fix_plan.md': plan(i % 2 === 0) }, statusBlock: working })),
      maxLoops: 14,
    });
    expectHalted(ran, ['stalled']);
  });

  it('flips a file back and forth and ticks the code item when the file is back as it was: halted', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Add the cache to src/cache.js\n',
      files: { 'src/cache.js': 'v0\n' },
      calls: times(8, (i) =>
        i % 2 === 0
          ? { writeFiles: { 'src/cache.js': 'v1\n' }, statusBlock: working }
          : { writeFiles: { 'src/cache.js': 'v0\n' }, tickFixPlan: 1, statusBlock: complete },
      ),
    });
    expectHalted(ran, STOPS);
  });

  it('splits an item into parts and back again, forever: halted', async () => {
    const whole = '# Fix Plan\n- [ ] Add user import (CSV and JSON)\n';
    const parts = '# Fix Plan\n- [ ] Add user import: the CSV reader\n- [ ] Add user import: the JSON reader\n';
    const ran = await runScripted(cleanups, {
      plan: whole,
      calls: times(8, (i) => ({ writeFiles: { '.ralph/fix_plan.md': i % 2 === 0 ? parts : whole }, statusBlock: working })),
    });
    expectHalted(ran, STOPS);
  });
});

describe('the junk-writing agent', () => {
  it('writes a noise file each loop into the monorepo folder the run may work in: stalled', async () => {
    const ran = await runScripted(cleanups, {
      projectIn: 'apps/web',
      repoFiles: { 'libs/shared/src/index.js': 'export {};\n' },
      plan: '# Fix Plan\n- [ ] Add the date helpers to libs/shared\n',
      rc: 'WORK_DIRS="../../libs/shared"\n',
      calls: times(12, (i) => ({ writeFiles: { [`../../libs/shared/junk-${i}.txt`]: `${i}\n` }, statusBlock: working })),
    });
    expectHalted(ran, ['stalled', 'stagnation_detected']);
    expect(ran.calls).toBeLessThanOrEqual(8);
  });

  it('appends to AGENT.md every loop while an item names it, never finishing it: stalled', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Record the build commands in .ralph/AGENT.md\n',
      calls: times(12, (i) => ({ appendFiles: { '.ralph/AGENT.md': `- note ${i}\n` }, statusBlock: working })),
    });
    expectHalted(ran, ['stalled', 'stagnation_detected']);
    expect(ran.calls).toBeLessThanOrEqual(8);
  });

  it('writes noise while the failure count goes up and down (3, 2, 3, 2 …): a fall to a count seen before is no progress', async () => {
    // Two tests fail while src/half.txt says on, three while it says off.
    const suite = `
read -r half < src/half.txt
if [ "$half" = on ]; then failed=2; else failed=3; fi
echo "Tests:       $failed failed, 1 passed, $((failed + 1)) total"
exit 1
`;
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Make the date tests pass\n',
      rc: `${GATE_RC}CB_SAME_FAILURES_THRESHOLD=0\n`,
      calls: times(14, (i) => ({
        writeFiles: { [`junk-${i}.txt`]: `${i}\n`, 'src/half.txt': i % 2 === 0 ? 'on\n' : 'off\n' },
        statusBlock: working,
      })),
      files: { 'test.sh': suite, 'src/half.txt': 'off\n' },
      maxLoops: 14,
    });
    expectHalted(ran, ['stalled']);
  });
});
