// Asking a recognised test runner for a machine-readable report, without changing what it
// runs: vitest gets a JSON reporter next to its default one, jest `--json --outputFile`,
// pytest `--junitxml`, `go test` `-json`. Only plain argv commands are touched (a shell
// command is the user's own script, left as written), and only when the runner is clearly
// the one named: `vitest …`, `npx jest …`, `python3 -m pytest …`, `go test …`, or `npm test`
// whose scripts.test is itself a plain vitest / jest command. Pure.

import { basename } from 'node:path';
import type { ReportFormat } from './verification-result.js';
import { splitWords } from './command-line.js';

export type Runner = 'vitest' | 'jest' | 'pytest' | 'go' | 'cargo' | 'unknown';

export interface OutputPlan {
  argv: string[];
  runner: Runner;
  /** Where the report is read from: a file the runner writes, stdout, or nothing structured. */
  report: { kind: 'file'; format: ReportFormat; path: string } | { kind: 'stdout'; format: ReportFormat } | null;
}

export interface PlanOutputOptions {
  /** A path the report file may be written to (inside a temp dir the gate owns). */
  reportPath: string;
  /** package.json scripts, to see through `npm test`. */
  packageScripts?: Record<string, unknown>;
}

const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx']);
const PACKAGE_MANAGERS = new Set(['pnpm', 'yarn']);

export function planStructuredOutput(argv: readonly string[], options: PlanOutputOptions): OutputPlan {
  const runner = recognizeRunner(argv);
  const path = options.reportPath;
  switch (runner) {
    case 'vitest':
      if (hasOption(argv, '--reporter') || hasOption(argv, '--outputFile')) break;
      // The default reporter stays, so the output the agent and the record see is unchanged.
      return {
        argv: [...argv, '--reporter=default', '--reporter=json', `--outputFile.json=${path}`],
        runner,
        report: { kind: 'file', format: 'vitest-json', path },
      };
    case 'jest':
      if (hasOption(argv, '--json') || hasOption(argv, '--outputFile')) break;
      return { argv: [...argv, '--json', `--outputFile=${path}`], runner, report: { kind: 'file', format: 'jest-json', path } };
    case 'pytest':
      if (hasOption(argv, '--junitxml') || hasOption(argv, '--junit-xml')) break;
      return { argv: [...argv, `--junitxml=${path}`], runner, report: { kind: 'file', format: 'junit-xml', path } };
    case 'go': {
      if (argv.includes('-json')) return { argv: [...argv], runner, report: { kind: 'stdout', format: 'go-json' } };
      const at = argv.indexOf('test');
      return { argv: [...argv.slice(0, at + 1), '-json', ...argv.slice(at + 1)], runner, report: { kind: 'stdout', format: 'go-json' } };
    }
    case 'unknown': {
      const script = npmTestScript(argv, options.packageScripts);
      if (script) {
        const inner = planStructuredOutput(script, { reportPath: path });
        if (inner.report?.kind === 'file' && (inner.runner === 'vitest' || inner.runner === 'jest')) {
          // npm passes what follows `--` to the script.
          return { argv: [...argv, '--', ...inner.argv.slice(script.length)], runner: inner.runner, report: inner.report };
        }
      }
      break;
    }
    default:
      break;
  }
  return { argv: [...argv], runner, report: null };
}

export function recognizeRunner(argv: readonly string[]): Runner {
  const words = argv.map((word, i) => (i === 0 ? basename(word) : word));
  let i = 0;
  if (PACKAGE_RUNNERS.has(words[0] ?? '')) {
    i = 1;
    while (words[i]?.startsWith('-')) i++;
  } else if (PACKAGE_MANAGERS.has(words[0] ?? '') || (words[0] === 'npm' && words[1] === 'exec')) {
    i = words[1] === 'exec' ? 2 : 1;
    while (words[i]?.startsWith('-')) i++;
  } else if (words[0] === 'uv' || words[0] === 'poetry' || words[0] === 'pipenv') {
    if (words[1] === 'run') i = 2;
  }
  const tool = basename(words[i] ?? '');
  if (tool === 'vitest') return 'vitest';
  if (tool === 'jest') return 'jest';
  if (tool === 'pytest' || tool === 'py.test') return 'pytest';
  if (/^python(\d(\.\d+)?)?$/.test(tool) && words[i + 1] === '-m' && words[i + 2] === 'pytest') return 'pytest';
  if (tool === 'go' && words[i + 1] === 'test' && i === 0) return 'go';
  if (tool === 'cargo' && words[i + 1] === 'test') return 'cargo';
  return 'unknown';
}

// `npm test`, `npm t`, `npm run test` with no extra arguments, and a plain scripts.test.
function npmTestScript(argv: readonly string[], scripts: Record<string, unknown> | undefined): string[] | null {
  const plain = argv.length === 2 && (argv[1] === 'test' || argv[1] === 't');
  const viaRun = argv.length === 3 && (argv[1] === 'run' || argv[1] === 'run-script') && argv[2] === 'test';
  if (basename(argv[0] ?? '') !== 'npm' || !(plain || viaRun)) return null;
  const script = scripts?.test;
  if (typeof script !== 'string') return null;
  const words = splitWords(script.trim());
  return words && words.length > 0 ? words : null;
}

function hasOption(argv: readonly string[], name: string): boolean {
  return argv.some((word) => word === name || word.startsWith(`${name}=`) || word.startsWith(`${name}.`));
}
