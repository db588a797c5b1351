import { afterEach, describe, expect, it } from 'vitest';
import { describeVerificationSetup, planVerification } from '../../../lib/verify/verification-setup.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

const config = { TEST_COMMAND: '', QUALITY_GATES: '', VERIFY_BEFORE_EXIT: true, VERIFY_TIMEOUT_MINUTES: 10 };

describe('planVerification', () => {
  it('runs the test command then the quality gates, and completion waits for them', () => {
    project = tmpProject({ 'Cargo.toml': '[package]\n' });
    const setup = planVerification({ ...config, QUALITY_GATES: 'cargo clippy, cargo fmt --check' }, project.dir);
    expect(setup.commands).toEqual([
      { command: 'cargo test', role: 'test' },
      { command: 'cargo clippy', role: 'quality-gate' },
      { command: 'cargo fmt --check', role: 'quality-gate' },
    ]);
    expect(setup.requiredForExit).toBe(true);
    expect(setup.timeoutMs).toBe(600_000);
    expect(describeVerificationSetup(setup)).toBe(
      'Verification gate: tests: cargo test (from Cargo.toml); quality gates: cargo clippy | cargo fmt --check; completion requires it to pass',
    );
  });

  it('requires nothing when there is nothing to run or VERIFY_BEFORE_EXIT=false', () => {
    project = tmpProject({});
    const none = planVerification(config, project.dir);
    expect(none.commands).toEqual([]);
    expect(none.requiredForExit).toBe(false);
    expect(describeVerificationSetup(none)).toMatch(/no test command found/);
    expect(planVerification({ ...config, TEST_COMMAND: 'make test', VERIFY_BEFORE_EXIT: false }, project.dir).requiredForExit).toBe(false);
  });
});
