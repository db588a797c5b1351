// ralph-monitor's flag table: its parsing, checks and --help all come from these rows
// (flag-table.ts). Apart from the command so tests can import it.

import { RalphError } from '../../errors.js';
import { DEFAULT_WEB_HOST } from '../../web/web-address.js';
import { HELP_ROW, parseFlags, renderHelp, VERSION_ROW, type FlagRow, type FlagTable } from '../flag-table.js';

export interface MonitorArgs {
  once: boolean;
  intervalSeconds: number;
  /** --unit N: follow that unit's live output instead of drawing the dashboard. */
  unit?: number;
  /** --live: follow the loop's live output instead of drawing the dashboard. */
  live: boolean;
  /** --web: serve the live view over HTTP instead of drawing in the terminal. */
  web?: WebAddressArgs;
}

/** Where `--web` listens (ralph-monitor --port/--host, ralph --web-port/--web-host). */
export interface WebAddressArgs {
  host: string;
  /** 0: a free port. */
  port: number;
}

const INTERVAL_MESSAGE = '--interval requires a number of seconds between 0.1 and 3600';
const UNIT_MESSAGE = '--unit requires a unit number from 1 to 999 (its place in the plan)';
const PORT_MESSAGE = '--port requires a port number from 1 to 65535';

export const MONITOR_FLAGS: readonly FlagRow[] = [
  { name: 'once', describe: 'Print one frame and exit (for scripts)' },
  {
    name: 'interval',
    arg: 'SECS',
    kind: 'number',
    min: 0.1,
    max: 3600,
    default: 2,
    invalid: INTERVAL_MESSAGE,
    hint: 'e.g. ralph-monitor --interval 5',
    describe: 'Seconds between refreshes',
  },
  {
    name: 'unit',
    arg: 'N',
    kind: 'int',
    min: 1,
    max: 999,
    invalid: UNIT_MESSAGE,
    hint: 'e.g. ralph-monitor --unit 2',
    describe:
      "Follow the live output of the Nth unit of a ralph --parallel run (its worktree's .ralph/live.log, control sequences removed); the unit-N windows of ralph --monitor --parallel run this",
  },
  {
    name: 'live',
    describe: "Follow the loop's live output (.ralph/live.log, control sequences removed); the output pane of ralph --monitor runs this",
  },
  {
    name: 'web',
    describe: 'Serve a read-only live view of the run in a browser instead; prints its address (with a token every request needs) and runs until Ctrl+C',
  },
  {
    name: 'port',
    arg: 'N',
    kind: 'int',
    min: 1,
    max: 65535,
    invalid: PORT_MESSAGE,
    hint: 'e.g. ralph-monitor --web --port 8420',
    describe: 'With --web: the port to listen on (default: a free one)',
    defaultNote: false,
  },
  {
    name: 'host',
    arg: 'ADDR',
    hint: 'e.g. ralph-monitor --web --host 0.0.0.0',
    describe:
      'With --web: the address to listen on (default 127.0.0.1, this machine only; another address lets other machines in that can reach it, the token still required)',
    defaultNote: false,
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
  const web = values.web ? { host: (values.host as string | undefined) ?? DEFAULT_WEB_HOST, port: (values.port as number | undefined) ?? 0 } : undefined;
  for (const name of ['port', 'host'] as const) {
    if (values[name] !== undefined && !web) {
      throw new RalphError('bad_flag', `--${name} goes with --web`, { hint: `e.g. ralph-monitor --web --${name} ${name === 'port' ? '8420' : '127.0.0.1'}` });
    }
  }
  if (web && (unit !== undefined || values.once || values.live)) {
    throw new RalphError('bad_flag', `--web does not go with --${unit !== undefined ? 'unit' : values.once ? 'once' : 'live'}`, {
      hint: 'run ralph-monitor --web alone',
    });
  }
  if (values.live && (values.once || unit !== undefined)) {
    throw new RalphError('bad_flag', `--live follows the loop's live output and does not go with ${values.once ? '--once' : '--unit'}`, {
      hint: 'run ralph-monitor --live alone',
    });
  }
  return { once: Boolean(values.once), intervalSeconds: values.interval as number, unit, live: Boolean(values.live), ...(web ? { web } : {}) };
}

export function renderMonitorHelp(): string {
  return renderHelp({
    header: 'Ralph Monitor: live status dashboard for the Ralph loop in this directory\n\nUsage: ralph-monitor [OPTIONS]',
    rows: MONITOR_FLAGS,
    footer:
      'Reads .ralph/ in the current directory. Colours follow NO_COLOR. Ctrl+C exits.\nralph-monitor --web serves the same view to a browser: http://127.0.0.1:<port>/?token=<token>.',
  });
}
