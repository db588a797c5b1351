import { describe, expect, it } from 'vitest';
import { interpretCommand, type InterpretCommandInput } from '../../../lib/verify/interpret-command.js';
import type { RunCommandResult } from '../../../lib/verify/run-command.js';
import { readReport } from './parsers/report-fixture.js';

function run(overrides: Partial<RunCommandResult> = {}): RunCommandResult {
  return { exitCode: 0, signal: null, timedOut: false, interrupted: false, durationMs: 1200, stdout: '', output: '', ...overrides };
}

function input(overrides: Partial<InterpretCommandInput> = {}): InterpretCommandInput {
  return { command: 'npm test', role: 'test', plan: { report: null }, run: run(), timeoutMs: 600_000, cwd: '/home/dev/project', ...overrides };
}

describe('interpretCommand', () => {
  it('uses the structured report when the runner wrote one', () => {
    const result = interpretCommand(
      input({
        plan: { report: { kind: 'file', format: 'vitest-json', path: '/x' } },
        reportText: readReport('vitest-report.json'),
        run: run({ exitCode: 1, output: 'lots of output' }),
      }),
    );
    expect(result).toMatchObject({
      status: 'failed',
      format: 'vitest-json',
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: [{ name: 'sum.spec.ts > sum > adds two numbers' }],
      exitCode: 1,
      durationMs: 1200,
    });
  });

  it('falls back to the output when the report file is missing or unreadable', () => {
    const result = interpretCommand(
      input({
        plan: { report: { kind: 'file', format: 'junit-xml', path: '/x' } },
        reportText: '<testsuite',
        run: run({ exitCode: 1, output: readReport('pytest-output.txt') }),
      }),
    );
    expect(result).toMatchObject({ status: 'failed', format: 'summary', failed: 3, passed: 1 });
  });

  it('reads go -json from stdout and TAP from stdout', () => {
    const go = interpretCommand(
      input({ plan: { report: { kind: 'stdout', format: 'go-json' } }, run: run({ exitCode: 1, stdout: readReport('go-test.jsonl') }) }),
    );
    expect(go).toMatchObject({ format: 'go-json', failed: 3 });
    const tap = readReport('node-test.tap');
    expect(interpretCommand(input({ run: run({ exitCode: 1, stdout: tap, output: tap }) }))).toMatchObject({ format: 'tap', failed: 1 });
  });

  it('names a failing command it could read nothing from after the command, with the exit code and the output tail', () => {
    const output = `${'noise\n'.repeat(30)}src/a.ts:3:1 error  Missing semicolon\n✖ 1 problem\n`;
    const result = interpretCommand(
      input({ command: 'npm run lint', role: 'quality-gate', run: run({ exitCode: 2, output: `\u001b[31m${output}\u001b[0m` }) }),
    );
    expect(result.status).toBe('failed');
    expect(result.format).toBe('exit-code');
    expect(result.failed).toBe(1);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]!.name).toBe('npm run lint');
    expect(result.failures[0]!.message).toMatch(/^exited with code 2\n/);
    expect(result.failures[0]!.message).toContain('Missing semicolon');
    expect(result.output).not.toContain('\u001b[');
  });

  it('passes on exit 0 whatever the parsed counts say, and keeps no failures', () => {
    const result = interpretCommand(input({ run: run({ exitCode: 0, output: '==== 3 passed in 0.1s ====' }) }));
    expect(result).toMatchObject({ status: 'passed', passed: 3, failed: 0, failures: [] });
  });

  it('is an error, not a failure, when the command could not start, timed out or was interrupted', () => {
    const enoent = Object.assign(new Error('spawn nope ENOENT'), { code: 'ENOENT' });
    expect(interpretCommand(input({ command: 'nope', run: run({ exitCode: null, spawnError: enoent }) }))).toMatchObject({
      status: 'error',
      failures: [{ name: 'nope', message: 'could not start: ENOENT' }],
    });
    const timedOut = interpretCommand(input({ run: run({ exitCode: null, signal: 'SIGTERM', timedOut: true }), timeoutMs: 600_000 }));
    expect(timedOut.status).toBe('error');
    expect(timedOut.failures[0]!.message).toMatch(/^timed out after 10m/);
    expect(interpretCommand(input({ run: run({ exitCode: null, interrupted: true }) })).failures[0]!.message).toBe('interrupted');
  });

  it('caps the failures it keeps and counts the rest', () => {
    const lines = Array.from({ length: 150 }, (_, i) => `FAILED tests/test_x.py::test_${i} - boom`).join('\n');
    const result = interpretCommand(input({ run: run({ exitCode: 1, output: `${lines}\n==== 150 failed in 1.0s ====` }) }));
    expect(result.failed).toBe(150);
    expect(result.failures).toHaveLength(100);
    expect(result.failuresOmitted).toBe(50);
  });

  describe('a test command that ran no test is not verified, never passed', () => {
    const zeroTests: Array<[string, Partial<InterpretCommandInput>]> = [
      [
        'vitest JSON with numTotalTests 0',
        {
          plan: { report: { kind: 'file', format: 'vitest-json', path: '/x' } },
          reportText: JSON.stringify({ numTotalTests: 0, numPassedTests: 0, numFailedTests: 0, testResults: [] }),
        },
      ],
      [
        'jest JSON with numTotalTests 0',
        { plan: { report: { kind: 'file', format: 'jest-json', path: '/x' } }, reportText: JSON.stringify({ numTotalTests: 0, testResults: [] }) },
      ],
      ['TAP 1..0', { run: run({ stdout: 'TAP version 13\n1..0\n', output: 'TAP version 13\n1..0\n' }) }],
      ['pytest exit 5, "collected 0 items"', { run: run({ exitCode: 5, output: 'collected 0 items\n\n=== no tests ran in 0.01s ===\n' }) }],
      ['a "No tests found" line', { run: run({ output: 'No tests found, exiting with code 0\n' }) }],
      ['cargo "running 0 tests"', { run: run({ output: 'running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n' }) }],
    ];
    it.each(zeroTests)('%s', (_name, overrides) => {
      const result = interpretCommand(input(overrides));
      expect(result.status).toBe('not-verified');
      expect(result.failures[0]!.message).toMatch(/^ran no test/);
    });

    it('keeps a pass it could count nothing from as passed, on the exit code only', () => {
      const result = interpretCommand(input({ command: 'make check', run: run({ output: 'checking... all good\n' }) }));
      expect(result).toMatchObject({ status: 'passed', format: 'exit-code', passed: 0 });
    });

    it('a test command that exits 0 and prints nothing (a script replaced by `exit 0`) ran no test', () => {
      const result = interpretCommand(input({ command: 'sh run-tests.sh', run: run({ output: ' \n' }) }));
      expect(result).toMatchObject({ status: 'not-verified', failures: [{ name: 'sh run-tests.sh' }] });
      expect(result.failures[0]!.message).toBe('ran no test (exit code 0 and printed nothing): not verified');
      // A quality gate that prints nothing is a pass: it is not a test run.
      expect(interpretCommand(input({ role: 'quality-gate', command: 'true', run: run({ output: '' }) })).status).toBe('passed');
    });

    it('judges quality gates and real test runs as before', () => {
      expect(interpretCommand(input({ role: 'quality-gate', run: run({ output: 'No tests found\n' }) })).status).toBe('passed');
      const tap = 'TAP version 13\nok 1 - adds\n1..1\n';
      expect(interpretCommand(input({ run: run({ stdout: tap, output: tap }) }))).toMatchObject({ status: 'passed', format: 'tap', passed: 1 });
      expect(interpretCommand(input({ run: run({ exitCode: 5, output: 'boom\n' }) })).status).toBe('failed');
    });
  });
});
