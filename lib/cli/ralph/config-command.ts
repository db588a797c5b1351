// `ralph --config` (`--json`, `--jq`) as ralph.ts answers it at once: built apart from ralph's
// other commands (scripts/bundle.mjs), so it holds its own copies of our modules and reports its
// own errors (exitCodeOf): only the exit code goes back to ralph.ts.

import { exitCodeOf } from '../error-funnel.js';
import type { RalphCliOptions } from './ralph-options.js';
import { showConfig } from './show-config.js';

export function runConfigCommand(options: Pick<RalphCliOptions, 'flags' | 'json' | 'jq'>): Promise<number> {
  return exitCodeOf(() => showConfig(options, process.cwd()));
}
