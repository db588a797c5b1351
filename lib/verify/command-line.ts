// How a configured command string (TEST_COMMAND, each QUALITY_GATES entry, the command found in
// AGENT.md) becomes an argv. A command with no shell syntax is split the way a POSIX shell would
// split words (quotes, backslashes) and run directly. A command that needs a shell — pipes,
// `&&`, redirections, `$VAR`, globs, `VAR=value cmd` — runs as `sh -c <command>`: that string is
// the user's own configured command, the same thing they would type, so running it through
// their shell is what they asked for. Pure.

export interface CommandPlan {
  /** The argv to spawn: the split words, or ['sh', '-c', command]. */
  argv: string[];
  /** true when the command needed a shell and runs through `sh -c`. */
  shell: boolean;
}

// Unquoted characters that mean something to a shell. `#` and `~` only at the start of a word.
const SHELL_CHARS = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '{', '}', '\n']);
const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function planCommand(command: string): CommandPlan {
  const trimmed = command.trim();
  const words = splitWords(trimmed);
  if (words === null || words.length === 0 || ENV_ASSIGNMENT.test(trimmed)) {
    return { argv: ['sh', '-c', trimmed], shell: true };
  }
  return { argv: words, shell: false };
}

/** The words of a command without shell syntax, or null when it needs a shell. */
export function splitWords(command: string): string[] | null {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const n = command.length;
  while (i < n) {
    const c = command[i]!;
    if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    if (!inWord && (c === '#' || c === '~')) return null;
    if (SHELL_CHARS.has(c)) return null;
    inWord = true;
    if (c === '\\') {
      if (i + 1 >= n) return null;
      const next = command[i + 1]!;
      // A backslash-newline is a line continuation: it disappears.
      if (next !== '\n') word += next;
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return null;
      word += command.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      const quoted = readDoubleQuoted(command, i + 1);
      if (quoted === null) return null;
      word += quoted.text;
      i = quoted.end + 1;
      continue;
    }
    word += c;
    i++;
  }
  if (inWord) words.push(word);
  return words;
}

// Inside double quotes only `$`, backquote, `"`, `\` and newline are special; `$` and backquote
// expand, so they need a shell.
function readDoubleQuoted(command: string, start: number): { text: string; end: number } | null {
  let text = '';
  for (let i = start; i < command.length; i++) {
    const c = command[i]!;
    if (c === '"') return { text, end: i };
    if (c === '$' || c === '`') return null;
    if (c === '\\' && i + 1 < command.length) {
      const next = command[i + 1]!;
      if (next === '"' || next === '\\' || next === '$' || next === '`') {
        text += next;
        i++;
        continue;
      }
      if (next === '\n') {
        i++;
        continue;
      }
    }
    text += c;
  }
  return null;
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
