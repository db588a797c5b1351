// Which command runs Claude Code for ralph-import: CLAUDE_CODE_CMD from the environment, else
// from the .ralphrc in the working directory, else `claude` on PATH, else the working
// directory's or ralph's own node_modules/.bin/claude (the same lookup as `ralph` at start-up).
// A multi-word value such as `npx @anthropic-ai/claude-code` is split into argv (the Bash tool
// ran it as one word, §13.2 #7).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitCommand } from '../agents/claude-code.js';
import { parseRalphrc } from '../config/ralphrc.js';
import { findExecutable, isExecutableFile } from '../platform/find-executable.js';
import { PACKAGE_ROOT } from '../cli/package-info.js';

export const DEFAULT_CLAUDE_CODE_CMD = 'claude';

export function resolveClaudeCodeCommand(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const configured = env.CLAUDE_CODE_CMD?.trim() || readRalphrcValue(join(cwd, '.ralphrc'), 'CLAUDE_CODE_CMD', env);
  const argv = configured ? splitCommand(configured) : [];
  if (argv.length > 0) return argv;
  if (findExecutable(DEFAULT_CLAUDE_CODE_CMD, env)) return [DEFAULT_CLAUDE_CODE_CMD];
  const local = [cwd, PACKAGE_ROOT].map((root) => join(root, 'node_modules', '.bin', 'claude')).find(isExecutableFile);
  return [local ?? DEFAULT_CLAUDE_CODE_CMD];
}

/** True when argv[0] is an existing file path or an executable on PATH. */
export function isCommandAvailable(command: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const executable = command[0];
  if (!executable) return false;
  if (executable.includes('/')) return existsSync(executable);
  return findExecutable(executable, env) !== undefined;
}

function readRalphrcValue(path: string, key: string, env: NodeJS.ProcessEnv): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return parseRalphrc(text, { env }).entries.filter((entry) => entry.key === key).pop()?.value;
}
