// `ralph --config` (`--json`, `--jq`): the effective configuration, each value with where it
// came from. Apart from the command line parser so the fast path can answer it without loading it.

import { homedir } from 'node:os';
import { loadConfig } from '../../config/load-config.js';
import { formatConfigJson, formatConfigText } from '../../config/format-config.js';
import { formatConfigProblem } from '../../config/problems.js';
import type { RalphCliOptions } from './ralph-options.js';

export async function showConfig(options: Pick<RalphCliOptions, 'flags' | 'json' | 'jq'>, cwd: string): Promise<number> {
  const result = loadConfig({ projectDir: cwd, homeDir: homedir(), env: process.env, flags: options.flags });
  for (const warning of result.warnings) process.stderr.write(`Warning: ${formatConfigProblem(warning)}\n`);
  if (options.json) {
    const { printJson } = await import('../print-json.js');
    await printJson(formatConfigJson(result), options.jq, (t) => process.stdout.write(t));
    return 0;
  }
  process.stdout.write(formatConfigText(result));
  return 0;
}
