// The gate against a real pytest project: JUnit XML asked for and read, the same failure shape
// as vitest's. In the system suite: it needs pytest (`python3 -m pytest`), which `npm test` does not.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatFailuresForContext } from '../../../lib/verify/verification.js';
import { runVerificationGate } from '../../../lib/verify/run-gate.js';
import { planVerification } from '../../../lib/verify/verification-setup.js';
import type { VerificationResult } from '../../../lib/verify/verification-result.js';
import { requirePytest } from '../../helpers/sandbox-tools.js';
import { copyFixture, gateOptions, type FixtureCopy } from '../../integration/verify/verify-fixture.js';

let fixture: FixtureCopy;
let result: VerificationResult;

beforeAll(async () => {
  requirePytest();
  fixture = copyFixture('python-project');
  // Detected from pytest.ini, as a project without TEST_COMMAND would be.
  const setup = planVerification({ TEST_COMMAND: '', QUALITY_GATES: '', VERIFY_BEFORE_EXIT: true, VERIFY_TIMEOUT_MINUTES: 1 }, fixture.dir);
  expect(setup.commands).toEqual([{ command: 'python3 -m pytest', role: 'test' }]);
  // -p no:cacheprovider keeps the temp project clean; it is still recognised as pytest.
  result = await runVerificationGate(gateOptions(fixture.dir, { commands: [{ command: 'python3 -m pytest -p no:cacheprovider', role: 'test' }] }));
});
afterAll(() => fixture.cleanup());

describe('verification gate on a pytest project', () => {
  it('reads the JUnit XML pytest wrote: counts, the failing test and its assertion', () => {
    expect(result).toMatchObject({ status: 'failed', passed: 1, failed: 1, skipped: 1 });
    expect(result.commands[0]).toMatchObject({ format: 'junit-xml', exitCode: 1 });
    expect(result.failures).toEqual([{ name: 'tests.test_calc.test_add', message: 'assert -1 == 3\n+  where -1 = add(1, 2)' }]);
  });

  it("feeds the failure into the next loop's context like any other runner", () => {
    expect(formatFailuresForContext(result, 1000)).toContain('- tests.test_calc.test_add: assert -1 == 3');
  });
});
