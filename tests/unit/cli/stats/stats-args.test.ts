// ralph-stats' flag table: every row parsed (argv → options), the generated error cases, and
// --help naming every row (flag-table-suite.ts).

import { describe, expect, it } from 'vitest';
import { parseStatsArgs, renderStatsHelp, STATS_FLAGS } from '../../../../lib/cli/stats/stats-args.js';
import { checkFlagTable, parseError } from '../flag-table-suite.js';

describe('the ralph-stats flag table', () => {
  checkFlagTable({
    rows: STATS_FLAGS,
    parse: parseStatsArgs,
    help: renderStatsHelp(),
    cases: {
      format: [['--format', 'table'], { format: 'table', full: false }],
      since: [['--since', '2h'], { format: 'json', since: '2h' }],
      full: [['--full'], { full: true }],
      jq: [['--jq', '.total_loops'], { format: 'json', jq: '.total_loops' }],
      help: [['--help'], 'help'],
      version: [['--version'], 'version'],
      debug: [['--debug'], { format: 'json', full: false }],
    },
  });

  it.each([
    [['--format', 'csv'], '--format must be one of json, table, got "csv"'],
    [['--format', 'table', '--jq', '.'], '--jq filters JSON output; it cannot be used with --format table'],
    [['--bogus', '-x'], 'Unknown option: --bogus, -x'],
    [['loops'], 'Unexpected argument: loops'],
  ])('ralph-stats %j: %s', (argv, message) => {
    expect(parseError(parseStatsArgs, argv)).toBe(message);
  });
});
