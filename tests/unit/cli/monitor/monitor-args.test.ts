// ralph-monitor's flag table: every row parsed (argv → options), the generated error cases, and
// --help naming every row (flag-table-suite.ts).

import { describe, expect, it } from 'vitest';
import { MONITOR_FLAGS, parseMonitorArgs, renderMonitorHelp } from '../../../../lib/cli/monitor/monitor-args.js';
import { checkFlagTable, parseError } from '../flag-table-suite.js';

describe('the ralph-monitor flag table', () => {
  checkFlagTable({
    rows: MONITOR_FLAGS,
    parse: parseMonitorArgs,
    help: renderMonitorHelp(),
    rowPrefix: { port: ['--web'], host: ['--web'] },
    cases: {
      once: [['--once'], { once: true, intervalSeconds: 2, unit: undefined, live: false }],
      interval: [['--interval', '0.5'], { once: false, intervalSeconds: 0.5 }],
      unit: [['--unit', '3'], { unit: 3 }],
      live: [['--live'], { live: true, once: false }],
      web: [['--web'], { web: { host: '127.0.0.1', port: 0 }, once: false }],
      port: [['--web', '--port', '8420'], { web: { host: '127.0.0.1', port: 8420 } }],
      host: [['--web', '--host', '0.0.0.0'], { web: { host: '0.0.0.0', port: 0 } }],
      help: [['--help'], 'help'],
      version: [['--version'], { once: false }],
    },
  });

  it.each([
    [['--interval', '0'], '--interval requires a number of seconds between 0.1 and 3600'],
    [['--interval', '3601'], '--interval requires a number of seconds between 0.1 and 3600'],
    [['--unit', '0'], '--unit requires a unit number from 1 to 999 (its place in the plan)'],
    [['--unit', '2', '--once'], '--unit follows a live output and does not go with --once'],
    [['--live', '--once'], "--live follows the loop's live output and does not go with --once"],
    [['--live', '--unit', '1'], "--live follows the loop's live output and does not go with --unit"],
    [['--port', '8420'], '--port goes with --web'],
    [['--web', '--live'], '--web does not go with --live'],
    [['--bogus', '-x'], 'Unknown arguments: bogus, x'],
    [['frame'], 'Unknown argument: frame'],
  ])('ralph-monitor %j: %s', (argv, message) => {
    expect(parseError(parseMonitorArgs, argv)).toBe(message);
  });

  it('no flag: the dashboard, refreshed every 2 seconds', () => {
    expect(parseMonitorArgs([])).toEqual({ once: false, intervalSeconds: 2, unit: undefined, live: false });
  });
});
