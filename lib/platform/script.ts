// Script-like commands (git, gh, bd, tmux in the bootstrap commands and the monitor) written as
// tagged templates, so they read like the Bash original: await git`-C ${dir} rev-parse HEAD`.
// The template becomes an argv here, never a shell string: literal text splits on whitespace,
// an interpolated value is one verbatim piece of its word (a list spreads into words), and
// ProcessRunner starts the argv without a shell, so a value such as `$(touch pwned)` reaches
// the program as one verbatim argument.

import type { ProcessRunner, RunOptions, RunResult } from './process.js';

export type Script = (pieces: TemplateStringsArray, ...values: ScriptValue[]) => Promise<ScriptResult>;
/** The run's result and the arguments it ran with (for messages). */
export interface ScriptResult extends RunResult {
  args: string[];
}
/** A word, or a list of words (each its own argument). */
export type ScriptValue = string | number | readonly (string | number)[];

export interface ScriptOptions extends RunOptions {
  runner: ProcessRunner;
  /** Arguments before the template's words on every call (tmux's `-L <socket>`). */
  leadingArgs?: readonly string[];
}

// Literal template text that would mean something else to Bash than it does here.
const SHELL_SYNTAX = /['"\\$`|&;<>()*?#\u0000]/;

/** A tag that runs `<cmd> <template words>`. */
export async function loadScript(cmd: string, options: ScriptOptions): Promise<Script> {
  const { runner, leadingArgs = [], ...runOptions } = options;
  return async (pieces, ...values) => {
    const bad = pieces.find((piece) => SHELL_SYNTAX.test(piece));
    if (bad !== undefined) throw new Error(`shell syntax in a script template (interpolate it instead): ${bad}`);
    const args = [...leadingArgs, ...templateArgv(pieces, values)];
    return { ...(await runner.run(cmd, args, runOptions)), args };
  };
}

/**
 * The argv of a template: literal text splits on whitespace; a value is one verbatim piece of
 * its word (`--format=${x}` stays one word; `${''}` is an empty argument); a list's items are
 * words of their own (the first and last join the text beside them; an empty list adds none).
 */
export function templateArgv(pieces: readonly string[], values: readonly ScriptValue[]): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  pieces.forEach((piece, i) => {
    for (const c of piece) {
      if (/\s/.test(c)) endWord();
      else {
        word += c;
        inWord = true;
      }
    }
    if (i >= values.length) return;
    const value = values[i]!;
    const items = Array.isArray(value) ? value : [value];
    items.forEach((item, n) => {
      if (n > 0) endWord();
      word += String(item);
      inWord = true;
    });
  });
  endWord();
  return words;
}
