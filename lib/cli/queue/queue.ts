// `ralph-queue`: builds and works through the persistent issue queue (.ralph/queue.json), as the
// Bash tool's ralph_queue.sh. The first word is the command; each command takes its own flags
// (queue-args.ts).

import { runMain } from '../error-funnel.js';
import { printHelpOrVersion } from '../help-or-version.js';
import { parseQueueArgs, renderQueueHelp } from './queue-args.js';

export async function mainQueue(argv: string[]): Promise<number> {
  const command = parseQueueArgs(argv);
  if (command === 'help' || command === 'version') return printHelpOrVersion(command, 'ralph-queue', renderQueueHelp);
  const { runQueueCommand } = await import('./queue-commands.js');
  return runQueueCommand(command, { projectDir: process.cwd(), flags: {}, write: (text) => process.stdout.write(text) });
}

await runMain(mainQueue);
