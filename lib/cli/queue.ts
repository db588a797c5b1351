// `ralph-queue`: builds and works through the persistent issue queue (.ralph/queue.json), as the
// Bash tool's ralph_queue.sh. The first word is the command; each command takes its own flags.

import { createParser, formatUnknownOptions, UsageError } from './bootstrap-args.js';
import { runMain } from './error-funnel.js';
import { QUEUE_HELP } from './messages-queue.js';
import { formatVersionLine, wantsVersion } from './package-info.js';
import type { QueueCommand } from './queue-commands.js';
import { RalphError } from '../errors.js';

const COMMANDS = ['add', 'status', 'next', 'remove', 'clear', 'reorder', 'validate', 'process', 'resume'] as const;

export function parseQueueArgs(argv: readonly string[]): QueueCommand | 'help' | 'version' {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h' || rest.includes('--help') || rest.includes('-h')) return 'help';
  if (wantsVersion(argv)) return 'version';
  if (!(COMMANDS as readonly string[]).includes(name)) throw usage(`Unknown command: ${name}`);
  const parser = createParser(rest, `ralph-queue ${name}`).parserConfiguration({ 'camel-case-expansion': false, 'duplicate-arguments-array': false });
  switch (name) {
    case 'add': {
      const parsed = parser
        .option('github-issues', { type: 'string' })
        .option('label', { type: 'string', alias: 'github-label' })
        .option('milestone', { type: 'string', alias: 'github-milestone' })
        .option('prd', { type: 'string' })
        .option('repo', { type: 'string' })
        .parseSync();
      const issues = [...(parsed._ as unknown[]).map(String), ...splitList(parsed['github-issues'])].flatMap((word) => word.split(',')).map((w) => w.trim()).filter(Boolean);
      const numbers = issues.map((word) => {
        if (!/^#?[1-9]\d*$/.test(word)) throw usage(`Invalid issue number: '${word}'`);
        return Number(word.replace('#', ''));
      });
      const labels = splitList(parsed.label);
      const milestone = optionalValue('--milestone', parsed.milestone);
      const prd = optionalValue('--prd', parsed.prd);
      if (numbers.length === 0 && labels.length === 0 && milestone === undefined && prd === undefined) {
        throw usage('Nothing to add: give issue numbers, --label, --milestone or --prd');
      }
      return { kind: 'add', issues: numbers, labels, milestone, prd, repo: optionalValue('--repo', parsed.repo) };
    }
    case 'status': {
      const parsed = noPositionals(parser.option('json', { type: 'boolean' }).parseSync());
      return { kind: 'status', json: Boolean(parsed.json) };
    }
    case 'remove': {
      const parsed = parser.parseSync();
      const refs = (parsed._ as unknown[]).map(String);
      if (refs.length !== 1) throw usage('remove takes one issue number or id');
      return { kind: 'remove', ref: refs[0]! };
    }
    case 'process':
    case 'resume': {
      const parsed = noPositionals(parser.option('halt-on-failure', { type: 'boolean' }).option('parallel', { type: 'string' }).parseSync());
      return { kind: 'process', haltOnFailure: Boolean(parsed['halt-on-failure']), parallel: parseParallel(parsed.parallel) };
    }
    default:
      noPositionals(parser.parseSync());
      return { kind: name as 'next' | 'clear' | 'reorder' | 'validate' };
  }
}

/** --parallel N: 2 to 16 items at a time (absent: one after another). */
function parseParallel(value: unknown): number {
  if (value === undefined) return 1;
  const text = String(value).trim();
  if (!/^[1-9][0-9]?$/.test(text) || Number(text) < 2 || Number(text) > 16) {
    throw usage(`--parallel requires a whole number from 2 to 16 (queue items at a time), got '${text}'`);
  }
  return Number(text);
}

function noPositionals<T extends { _: unknown[] }>(parsed: T): T {
  if (parsed._.length > 0) throw usage(`Unexpected argument: ${String(parsed._[0])}`);
  return parsed;
}

function splitList(value: unknown): string[] {
  if (value === undefined) return [];
  return String(value).split(',').map((part) => part.trim()).filter(Boolean);
}

function optionalValue(flag: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (text === '') throw usage(`${flag} requires a value`);
  return text;
}

function usage(message: string): RalphError {
  return new RalphError('bad_flag', message, { hint: 'run ralph-queue --help' });
}

export async function mainQueue(argv: string[]): Promise<number> {
  let command: ReturnType<typeof parseQueueArgs>;
  try {
    command = parseQueueArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) throw usage(formatUnknownOptions(error.message));
    throw error;
  }
  if (command === 'help') {
    process.stdout.write(`${QUEUE_HELP}\n`);
    return 0;
  }
  if (command === 'version') {
    process.stdout.write(`${formatVersionLine('ralph-queue')}\n`);
    return 0;
  }
  const { runQueueCommand } = await import('./queue-commands.js');
  return runQueueCommand(command, { projectDir: process.cwd(), flags: {}, write: (text) => process.stdout.write(text) });
}

await runMain(mainQueue);
