// ralph-queue's command table: each subcommand with its flags as rows (flag-table.ts), from which
// parsing, checks, errors and --help come. Apart from the command so tests can import it.

import { RalphError } from '../../errors.js';
import { HELP_ROW, parseSubcommand, renderSubcommandHelp, VERSION_ROW, type SubcommandTable } from '../flag-table.js';
import type { QueueCommand } from './queue-commands.js';

const parallelMessage = (raw: string) => `--parallel requires a whole number from 2 to 16 (queue items at a time), got '${raw.trim()}'`;
const PROCESS_FLAGS = [
  { name: 'halt-on-failure', describe: 'Stop at the first failed item' },
  {
    name: 'parallel',
    arg: 'N',
    kind: 'int',
    min: 2,
    max: 16,
    invalid: parallelMessage,
    describe:
      'N items at a time (2-16), each in its own git worktree and branch, merged back one at a time; an item waits until the items it depends on have merged; completed once merged, failed with its branch kept otherwise',
  },
] as const;

export const QUEUE_TABLE: SubcommandTable = {
  command: 'ralph-queue',
  subcommands: [
    {
      name: 'add',
      args: 'N [N...]',
      describe: 'Add GitHub issues by number',
      rows: [
        { name: 'github-issues', arg: 'N,N', describe: 'the same issue numbers, as a list' },
        { name: 'label', alias: 'github-label', arg: 'L[,L]', describe: 'the open issues carrying every label' },
        { name: 'milestone', alias: 'github-milestone', arg: 'M', describe: 'the open issues in a milestone' },
        { name: 'prd', arg: 'FILE', describe: 'a local PRD/spec file' },
        { name: 'repo', arg: 'OWNER/REPO', describe: 'the repository (default: the current one)' },
      ],
    },
    { name: 'status', args: '[--json]', describe: 'Show the queue', rows: [{ name: 'json', describe: 'the counts by status, as JSON' }] },
    { name: 'next', describe: 'Print the id of the next ready item', rows: [] },
    { name: 'remove', args: '<id|N>', describe: 'Remove an item by id or issue number', rows: [] },
    { name: 'clear', describe: 'Remove all items', rows: [] },
    { name: 'reorder', describe: 'Sort the queue by priority (P0 first)', rows: [] },
    { name: 'validate', describe: 'Check for circular dependencies (exit 1 on a cycle)', rows: [] },
    { name: 'process', args: '[--halt-on-failure] [--parallel N]', describe: 'Work through the ready items, one ralph run each', rows: PROCESS_FLAGS },
    { name: 'resume', args: '[--halt-on-failure] [--parallel N]', describe: 'Continue with the remaining pending items', rows: [], sameFlagsAs: 'process' },
  ],
  rows: [HELP_ROW, VERSION_ROW],
  fail: (problem) => new RalphError('bad_flag', problem.message, { details: problem.details, hint: problem.hint ?? 'run ralph-queue --help' }),
};

export function parseQueueArgs(argv: readonly string[]): QueueCommand | 'help' | 'version' {
  const parsed = parseSubcommand(argv, QUEUE_TABLE);
  if (parsed === 'help' || parsed === 'version') return parsed;
  const { name, values, positional } = parsed;
  const usage = (message: string) => QUEUE_TABLE.fail({ message });
  const none = () => {
    if (positional.length > 0) throw usage(`Unexpected argument: ${positional[0]}`);
  };
  switch (name) {
    case 'add': {
      const words = [...positional, ...splitList(values['github-issues'])]
        .flatMap((word) => word.split(','))
        .map((w) => w.trim())
        .filter(Boolean);
      const issues = words.map((word) => {
        if (!/^#?[1-9]\d*$/.test(word)) throw usage(`Invalid issue number: '${word}'`);
        return Number(word.replace('#', ''));
      });
      const labels = splitList(values.label);
      const milestone = values.milestone as string | undefined;
      const prd = values.prd as string | undefined;
      if (issues.length === 0 && labels.length === 0 && milestone === undefined && prd === undefined) {
        throw usage('Nothing to add: give issue numbers, --label, --milestone or --prd');
      }
      return { kind: 'add', issues, labels, milestone, prd, repo: values.repo as string | undefined };
    }
    case 'status':
      none();
      return { kind: 'status', json: Boolean(values.json) };
    case 'remove':
      if (positional.length !== 1) throw usage('remove takes one issue number or id');
      return { kind: 'remove', ref: positional[0]! };
    case 'process':
    case 'resume':
      none();
      // Absent: one item after another.
      return { kind: 'process', haltOnFailure: Boolean(values['halt-on-failure']), parallel: (values.parallel as number | undefined) ?? 1 };
    default:
      none();
      return { kind: name as 'next' | 'clear' | 'reorder' | 'validate' };
  }
}

function splitList(value: unknown): string[] {
  if (value === undefined) return [];
  return String(value)
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

export function renderQueueHelp(): string {
  return renderSubcommandHelp(QUEUE_TABLE, {
    column: 24,
    header: 'ralph-queue - Batch processing and issue queue management\n\nUsage: ralph-queue <command> [options]',
    footer: `Priority: the lowest P0-P9 (or "priority: pN") label; unlabelled last; first
added first. Dependencies: "depends on #N", "blocked by #N", "requires #N" in an
issue's body; an issue not in the queue counts as done.

Exit codes: 0 done; 1 bad usage, nothing ready (next), a cycle (validate), or a
failed item (process); 130/143 interrupted.

Examples:
  ralph-queue add 69 70 71
  ralph-queue add --label "bug,P0"
  ralph-queue status
  ralph-queue process --halt-on-failure
  ralph-queue process --parallel 3`,
  });
}
