import { describe, expect, it } from 'vitest';
import { planStructuredOutput, recognizeRunner } from '../../../lib/verify/structured-output.js';

const reportPath = '/tmp/r/report-0';

describe('planStructuredOutput', () => {
  it('adds a JSON reporter to vitest and keeps the default one', () => {
    expect(planStructuredOutput(['npx', 'vitest', 'run'], { reportPath })).toEqual({
      argv: ['npx', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportPath}`],
      runner: 'vitest',
      report: { kind: 'file', format: 'vitest-json', path: reportPath },
    });
  });

  it('asks jest for --json --outputFile and pytest for --junitxml', () => {
    expect(planStructuredOutput(['jest', '--ci'], { reportPath }).argv).toEqual(['jest', '--ci', '--json', `--outputFile=${reportPath}`]);
    expect(planStructuredOutput(['python3', '-m', 'pytest', '-q'], { reportPath })).toMatchObject({
      argv: ['python3', '-m', 'pytest', '-q', `--junitxml=${reportPath}`],
      report: { kind: 'file', format: 'junit-xml' },
    });
    expect(planStructuredOutput(['uv', 'run', 'pytest'], { reportPath }).runner).toBe('pytest');
  });

  it('puts -json right after go test and reads stdout', () => {
    expect(planStructuredOutput(['go', 'test', './...', '-run', 'X'], { reportPath })).toEqual({
      argv: ['go', 'test', '-json', './...', '-run', 'X'],
      runner: 'go',
      report: { kind: 'stdout', format: 'go-json' },
    });
  });

  it('sees through npm test when scripts.test is a plain vitest command', () => {
    expect(planStructuredOutput(['npm', 'test'], { reportPath, packageScripts: { test: 'vitest run' } })).toEqual({
      argv: ['npm', 'test', '--', '--reporter=default', '--reporter=json', `--outputFile.json=${reportPath}`],
      runner: 'vitest',
      report: { kind: 'file', format: 'vitest-json', path: reportPath },
    });
  });

  it('leaves commands alone when the runner is unclear or already reports', () => {
    const untouched = [
      { argv: ['npm', 'test'], packageScripts: { test: 'tsc && vitest run' } },
      { argv: ['npm', 'test'], packageScripts: { test: 'mocha' } },
      { argv: ['npm', 'test', '--', '-t', 'x'], packageScripts: { test: 'vitest run' } },
      { argv: ['vitest', 'run', '--reporter=verbose'] },
      { argv: ['pytest', '--junitxml=mine.xml'] },
      { argv: ['cargo', 'test'] },
      { argv: ['make', 'test'] },
      { argv: ['sh', '-c', 'vitest run | tee x'] },
    ];
    for (const { argv, packageScripts } of untouched) {
      expect(planStructuredOutput(argv, { reportPath, packageScripts }), argv.join(' ')).toMatchObject({ argv, report: null });
    }
  });
});

describe('recognizeRunner', () => {
  it.each([
    [['node_modules/.bin/vitest'], 'vitest'],
    [['pnpm', 'exec', 'jest'], 'jest'],
    [['yarn', 'vitest', 'run'], 'vitest'],
    [['npx', '--yes', 'jest'], 'jest'],
    [['npm', 'exec', 'vitest'], 'vitest'],
    [['py.test'], 'pytest'],
    [['python3.12', '-m', 'pytest'], 'pytest'],
    [['python', '-m', 'unittest'], 'unknown'],
    [['cargo', 'test'], 'cargo'],
    [['go', 'vet'], 'unknown'],
  ])('%j is %s', (argv, runner) => {
    expect(recognizeRunner(argv)).toBe(runner);
  });
});
