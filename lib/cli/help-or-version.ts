// `--help` or `--version`, as a command whose flag table read either answers it: the help
// rendered from the table, or the one version line (`ralph-queue 0.12.0`). Exit code 0.

import { formatVersionLine } from './package-info.js';

export function printHelpOrVersion(asked: 'help' | 'version', command: string, renderHelp: () => string): number {
  process.stdout.write(asked === 'help' ? renderHelp() : `${formatVersionLine(command)}\n`);
  return 0;
}
