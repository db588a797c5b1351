// `ralph --status` as ralph.ts answers it at once: built apart from ralph's other commands
// (scripts/bundle.mjs), so it holds its own copies of our modules and reports its own errors
// (exitCodeOf): only the exit code goes back to ralph.ts.

import { exitCodeOf } from '../error-funnel.js';
import { showStatus } from './status.js';

export function runStatusCommand(options: { json: boolean; jq?: string }): Promise<number> {
  return exitCodeOf(() => showStatus({ projectDir: process.cwd(), json: options.json, jq: options.jq, write: (text) => process.stdout.write(text) }));
}
