// `ralph --circuit-status` as ralph.ts answers it at once: built apart from ralph's other
// commands (scripts/bundle.mjs), so it holds its own copies of our modules and reports its own
// errors (exitCodeOf): only the exit code goes back to ralph.ts.

import { exitCodeOf } from '../error-funnel.js';
import { runStateCommand } from './state-commands.js';

export function runCircuitStatusCommand(): Promise<number> {
  return exitCodeOf(() => runStateCommand('circuit-status', { projectDir: process.cwd(), env: process.env, write: (text) => process.stdout.write(text) }));
}
