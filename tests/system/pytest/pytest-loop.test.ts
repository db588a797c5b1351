// The verification gate inside the real loop on a pytest project (tests/fixtures/verify/
// python-project): without TEST_COMMAND the command is detected from pytest.ini, and the
// failure is parsed, recorded and fed to the next loop the same way as vitest's. In the system
// suite: it needs pytest (`python3 -m pytest`), which `npm test` does not.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoopEvents, type LoopEventMap } from '../../../lib/loop/events.js';
import { requirePytest } from '../../helpers/sandbox-tools.js';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { loopContextIn, fixtureFiles, readOnlyRunRecord } from '../../integration/verify-loop/verify-loop-fixture.js';

beforeAll(() => requirePytest());

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

describe('the verification gate in the loop (pytest project)', () => {
  it('detects pytest, names the failing test in the next loop, and ends the run at its loop budget', async () => {
    current = loopProject(
      {
        calls: [
          { writeFiles: { 'NOTES.md': 'Looked at calc.add.\n' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } },
          { resultText: 'Still thinking.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } },
        ],
      },
      { files: { ...fixtureFiles('python-project'), '.ralph/fix_plan.md': '# Fix Plan\n- [ ] make add add\n' } },
    );
    const p = current;
    const events = new LoopEvents();
    const gates: Array<LoopEventMap['verification:completed']> = [];
    events.on('verification:completed', (e) => gates.push(e));
    const result = await p.run({ MAX_LOOPS: 2 }, { events });

    expect(result.exitCode).toBe(3);
    expect(result.logs).toContain('Verification gate: tests: python3 -m pytest (from pytest configuration); completion requires it to pass');
    expect(gates).toEqual([
      { loop: 1, status: 'failed', passed: 1, failed: 1, skipped: 1, durationMs: expect.any(Number), outcome: 'stuck', failing: ['tests.test_calc.test_add'] },
    ]);
    const [first, second] = p.fake.runs();
    expect(loopContextIn(first!.stdin)).not.toContain('test_add');
    expect(loopContextIn(second!.stdin)).toContain('- tests.test_calc.test_add: assert -1 == 3');

    const record = readOnlyRunRecord(p.project.dir);
    // Its loop budget (exit 3) ends the run: the next `ralph` starts a new one.
    expect(record.status).toBe('exhausted');
    expect(record.goal.test_command).toBe('python3 -m pytest');
    expect(record.last_verification).toMatchObject({
      loop: 1,
      status: 'failed',
      failures: [{ name: 'tests.test_calc.test_add', message: expect.stringContaining('assert -1 == 3') }],
      commands: [{ command: 'python3 -m pytest', role: 'test', status: 'failed' }],
    });
    const observation = record.observations.find((o) => o.source === 'test')!;
    expect(observation).toMatchObject({ command: 'python3 -m pytest', exit_code: 1, data: { format: 'junit-xml', failed: 1 } });
    // Loop 2 changed nothing: the unchanged failure counted again without running pytest.
    expect(record.attempts.map((a) => a.outcome)).toEqual(['stuck', 'stuck']);
  });
});
