// ralph-monitor's flags (its yargs definition) and its --help, which lists exactly those flags
// (tests/unit/cli/help-sync.test.ts). Apart from the command so tests can import it.

import yargs from 'yargs';
import { RalphError } from '../errors.js';

/** The flags of ralph-monitor; MONITOR_HELP lists exactly these (tests/unit/cli/help-sync.test.ts). */
export function monitorParser(argv: readonly string[]) {
  return yargs([...argv])
    .scriptName('ralph-monitor')
    .help(false)
    .version(false)
    .strict()
    .parserConfiguration({ 'camel-case-expansion': false })
    .option('help', { alias: 'h', type: 'boolean', describe: 'Show this help message' })
    .option('version', { type: 'boolean', describe: 'Show the version' })
    .option('once', { type: 'boolean', describe: 'Print one frame and exit (for scripts)' })
    .option('interval', { type: 'string', describe: 'Seconds between refreshes (default: 2)' })
    .option('unit', { type: 'string', describe: "Follow the live output of unit N of a ralph --parallel run" })
    .fail((message, error) => {
      throw error ?? new RalphError('bad_flag', message, { hint: 'run ralph-monitor --help for the list of options' });
    });
}

export const MONITOR_HELP =
  'Ralph Monitor: live status dashboard for the Ralph loop in this directory\n\n' +
  'Usage: ralph-monitor [OPTIONS]\n\n' +
  'Options:\n' +
  '  --once           Print one frame and exit (for scripts)\n' +
  '  --interval SECS  Seconds between refreshes (default: 2)\n' +
  '  --unit N         Follow the live output of the Nth unit of a ralph --parallel run\n' +
  '                   (its worktree\'s .ralph/live.log, control sequences removed); the\n' +
  '                   unit-N windows of ralph --monitor --parallel run this\n' +
  '  -h, --help       Show this help message\n' +
  '  --version        Show the version\n\n' +
  'Reads .ralph/ in the current directory. Colours follow NO_COLOR. Ctrl+C exits.\n';
