// ralph-queue's command table: for each subcommand, every row parsed (argv → the queue command),
// the generated error cases, and --help naming every row (flag-table-suite.ts).

import { describe, expect, it } from 'vitest';
import { subcommandRows } from '../../../../lib/cli/flag-table.js';
import { parseQueueArgs, QUEUE_TABLE, renderQueueHelp } from '../../../../lib/cli/queue/queue-args.js';
import { checkFlagTable, parseError } from '../flag-table-suite.js';

const help = renderQueueHelp();
const common = (name: string) => ({ help: [[name, '--help'], 'help'], version: [[name, '--version'], 'version'] }) as Record<string, [string[], unknown]>;

const CASES: Record<string, Record<string, [string[], unknown]>> = {
  add: {
    'github-issues': [['add', '--github-issues', '4,#5'], { kind: 'add', issues: [4, 5], labels: [] }],
    label: [['add', '--label', 'bug,P0'], { kind: 'add', issues: [], labels: ['bug', 'P0'] }],
    milestone: [['add', '--milestone', 'v1'], { milestone: 'v1' }],
    prd: [['add', '--prd', 'spec.md'], { prd: 'spec.md' }],
    repo: [['add', '7', '--repo', 'me/app'], { issues: [7], repo: 'me/app' }],
  },
  status: { json: [['status', '--json'], { kind: 'status', json: true }] },
  next: {},
  remove: {},
  clear: {},
  reorder: {},
  validate: {},
  process: {
    'halt-on-failure': [['process', '--halt-on-failure'], { kind: 'process', haltOnFailure: true, parallel: 1 }],
    parallel: [['process', '--parallel', '3'], { kind: 'process', haltOnFailure: false, parallel: 3 }],
  },
  resume: {
    'halt-on-failure': [['resume', '--halt-on-failure'], { kind: 'process', haltOnFailure: true, parallel: 1 }],
    parallel: [['resume', '--parallel', '16'], { kind: 'process', parallel: 16 }],
  },
};

describe('the ralph-queue command table', () => {
  it('has cases for every subcommand', () => {
    expect(Object.keys(CASES).sort()).toEqual(QUEUE_TABLE.subcommands.map((sub) => sub.name).sort());
  });

  for (const sub of QUEUE_TABLE.subcommands) {
    describe(`ralph-queue ${sub.name}`, () => {
      checkFlagTable({
        rows: subcommandRows(QUEUE_TABLE, sub.name),
        prefix: sub.name === 'add' ? ['add', '7'] : sub.name === 'remove' ? ['remove', '7'] : [sub.name],
        parse: parseQueueArgs,
        help,
        cases: { ...CASES[sub.name], ...common(sub.name) },
      });
    });
  }

  it('lists every subcommand in --help', () => {
    for (const sub of QUEUE_TABLE.subcommands) expect(help).toMatch(new RegExp(`^  ${sub.name}\\b`, 'm'));
  });

  it.each([
    [[], 'help'],
    [['help'], 'help'],
    [['-h'], 'help'],
    [['next'], { kind: 'next' }],
    [['remove', '#12'], { kind: 'remove', ref: '#12' }],
    [['add', '--github-label', 'bug'], { kind: 'add', labels: ['bug'] }],
  ])('ralph-queue %j → %j', (argv, expected) => {
    expect(parseQueueArgs(argv)).toMatchObject(expected as object);
  });

  it.each([
    [['status', '-q'], 'Unknown option: -q'],
    [['next', '-q', '--bogus'], 'Unknown option: -q, --bogus'],
    [['add', '--label', '-x'], 'Unknown option: -x'],
    [['frobnicate'], 'Unknown command: frobnicate'],
    [['add'], 'Nothing to add: give issue numbers, --label, --milestone or --prd'],
    [['add', '0'], "Invalid issue number: '0'"],
    [['remove'], 'remove takes one issue number or id'],
    [['clear', 'all'], 'Unexpected argument: all'],
    [['process', '--parallel', '1'], "--parallel requires a whole number from 2 to 16 (queue items at a time), got '1'"],
    [['process', '--parallel', 'two'], "--parallel requires a whole number from 2 to 16 (queue items at a time), got 'two'"],
  ])('ralph-queue %j: %s', (argv, message) => {
    expect(parseError(parseQueueArgs, argv)).toBe(message);
  });
});
