// How a configured command string (TEST_COMMAND, each QUALITY_GATES entry, the command found in
// AGENT.md) becomes an argv. A command with no shell syntax is split the way a POSIX shell would
// split words (quotes, backslashes) and run directly. A command that needs a shell — pipes,
// `&&`, redirections, `$VAR`, globs, `VAR=value cmd` — runs as `sh -c <command>`: that string is
// the user's own configured command, the same thing they would type, so running it through
// their shell is what they asked for. Pure.

import { splitWords } from '../text/command-words.js';

export { splitWords };

export interface CommandPlan {
  /** The argv to spawn: the split words, or ['sh', '-c', command]. */
  argv: string[];
  /** true when the command needed a shell and runs through `sh -c`. */
  shell: boolean;
}

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function planCommand(command: string): CommandPlan {
  const trimmed = command.trim();
  const words = splitWords(trimmed);
  if (words === null || words.length === 0 || ENV_ASSIGNMENT.test(trimmed)) {
    return { argv: ['sh', '-c', trimmed], shell: true };
  }
  return { argv: words, shell: false };
}

/**
 * QUALITY_GATES as a list of commands. Entries are separated by newlines (possible in the
 * environment) or by commas, like every other list key in .ralphrc. A comma inside quotes or
 * brackets (`eslint --ext '.ts,.tsx'`, `{a,b}`, `-k "x,y"`) belongs to its command, so a
 * command that needs a literal comma quotes it.
 */
export function splitCommandList(value: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let depth = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quote) {
      current += c;
      if (c === '\\' && quote === '"' && i + 1 < value.length) current += value[++i];
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '\\' && i + 1 < value.length) {
      current += c + value[++i];
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '{' || c === '[') depth++;
    else if ((c === ')' || c === '}' || c === ']') && depth > 0) depth--;
    if (c === '\n' || c === '\r' || (c === ',' && depth === 0)) {
      commands.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  commands.push(current);
  return commands.map((command) => command.trim()).filter((command) => command !== '');
}
