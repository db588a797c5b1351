// ralph-monitor's flag table: its parsing, checks and --help all come from these rows
// (flag-table.ts). Apart from the command so tests can import it.

import { RalphError } from '../../errors.js';
import { HELP_ROW, parseFlags, renderHelp, VERSION_ROW, type FlagRow, type FlagTable } from '../flag-table.js';

export interface MonitorArgs {
  once: boolean;
  intervalSeconds: number;
  /** --unit N: follow that unit's live output instead of drawing the dashboard. */
  unit?: number;
  /** --live: follow the loop's live output instead of drawing the dashboard. */
  live: boolean;
}

const INTERVAL_MESSAGE = '--interval requires a number of seconds between 0.1 and 3600';
const UNIT_MESSAGE = '--unit requires a unit number from 1 to 999 (its place in the plan)';

export const MONITOR_FLAGS: readonly FlagRow[] = [
  { name: 'once', describe: 'Print one frame and exit (for scripts)' },
  {
    name: 'interval', arg: 'SECS', kind: 'number', min: 0.1, max: 3600, default: 2, invalid: INTERVAL_MESSAGE, tooLarge: INTERVAL_MESSAGE,
    hint: 'e.g. ralph-monitor --interval 5', describe: 'Seconds between refreshes',
  },
  {
    name: 'unit', arg: 'N', kind: 'int', min: 1, max: 999, invalid: UNIT_MESSAGE, tooLarge: UNIT_MESSAGE, hint: 'e.g. ralph-monitor --unit 2',
    describe: "Follow the live output of the Nth unit of a ralph --parallel run (its worktree's .ralph/live.log, control sequences removed); the unit-N windows of ralph --monitor --parallel run this",
  },
  {
    name: 'live',
    describe: "Follow the loop's live output (.ralph/live.log, control sequences removed); the output pane of ralph --monitor runs this",
  },
  HELP_ROW,
  VERSION_ROW,
];

const HELP_HINT = 'run ralph-monitor --help for the list of options';

export const MONITOR_TABLE: FlagTable = {
  command: 'ralph-monitor',
  rows: MONITOR_FLAGS,
  unknownStyle: 'argument',
  fail: (problem) => new RalphError('bad_flag', problem.message, { details: problem.details, hint: problem.hint ?? HELP_HINT }),
};

export function parseMonitorArgs(argv: readonly string[]): MonitorArgs | 'help' {
  const { values, positional } = parseFlags(argv, MONITOR_TABLE);
  if (values.help) return 'help';
  if (positional.length > 0) throw MONITOR_TABLE.fail({ message: `Unknown argument: ${positional[0]}` });
  const unit = values.unit as number | undefined;
  if (unit !== undefined && values.once) {
    throw new RalphError('bad_flag', '--unit follows a live output and does not go with --once', { hint: 'run ralph-monitor --unit N alone' });
  }
  if (values.live && (values.once || unit !== undefined)) {
    throw new RalphError('bad_flag', `--live follows the loop's live output and does not go with ${values.once ? '--once' : '--unit'}`, { hint: 'run ralph-monitor --live alone' });
  }
  return { once: Boolean(values.once), intervalSeconds: values.interval as number, unit, live: Boolean(values.live) };
}

export function renderMonitorHelp(): string {
  return renderHelp({
    header: 'Ralph Monitor: live status dashboard for the Ralph loop in this directory\n\nUsage: ralph-monitor [OPTIONS]',
    rows: MONITOR_FLAGS,
    footer: 'Reads .ralph/ in the current directory. Colours follow NO_COLOR. Ctrl+C exits.',
  });
}
