// The one way ralph splits a command string into argv words: TEST_COMMAND and QUALITY_GATES
// (lib/verify/command-line.ts decides whether they need a shell), and the agents' commands
// (CLAUDE_CODE_CMD, CODEX_CMD, …), which never go through a shell. Pure.

import { RalphError } from '../errors.js';

// Unquoted characters that mean something to a shell. `#` and `~` only at the start of a word.
const SHELL_CHARS = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '{', '}', '\n']);

export interface SplitWordsOptions {
  /**
   * `refuse` (default): a command with shell syntax gives null (it needs a shell to mean what it
   * says). `literal`: shell characters are ordinary characters — for commands ralph runs itself
   * and never through a shell (CLAUDE_CODE_CMD and the other agents' commands).
   */
  shellSyntax?: 'refuse' | 'literal';
}

/**
 * The words of a command, split as a POSIX shell splits them (blanks, '…', "…", backslashes),
 * with no expansion of any kind; null when a quote is not closed, or (refuse) when it needs a shell.
 */
export function splitWords(command: string, options: SplitWordsOptions = {}): string[] | null {
  const literal = options.shellSyntax === 'literal';
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const n = command.length;
  while (i < n) {
    const c = command[i]!;
    if (c === ' ' || c === '\t' || (literal && c === '\n')) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    if (!literal && !inWord && (c === '#' || c === '~')) return null;
    if (!literal && SHELL_CHARS.has(c)) return null;
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
      const quoted = readDoubleQuoted(command, i + 1, literal);
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
function readDoubleQuoted(command: string, start: number, literal: boolean): { text: string; end: number } | null {
  let text = '';
  for (let i = start; i < command.length; i++) {
    const c = command[i]!;
    if (c === '"') return { text, end: i };
    if (!literal && (c === '$' || c === '`')) return null;
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
 * An agent's command as argv words: `npx @anthropic-ai/claude-code`, `"/opt/my tools/claude"`.
 * Nothing is expanded — this is not a shell — and an unclosed quote is an error naming the value.
 */
export function splitCommand(command: string): string[] {
  const words = splitWords(command.trim(), { shellSyntax: 'literal' });
  if (words === null) {
    throw new RalphError('bad_config', `The agent command ${JSON.stringify(command)} has a quote that is not closed`, {
      hint: 'fix CLAUDE_CODE_CMD (or CODEX_CMD, GEMINI_CMD, OPENCODE_CMD) in .ralphrc or the environment',
    });
  }
  return words;
}
