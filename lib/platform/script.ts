// Script-like commands (git, gh, bd, tmux in the bootstrap commands and the monitor) written as
// zx templates, so they read like the Bash original: await git`-C ${dir} rev-parse HEAD`.
//
// zx 8 itself always runs a command as ONE string through a shell (`shell: true` or a shell
// path; `$.shell = false` throws "No shell is available"), which the house rule forbids. So zx
// only builds the command here, halted (`$({ halt: true })`, never started), with a `quote` hook
// that wraps each interpolated value in NUL-delimited base64 instead of shell quoting; the
// words are read back into an argv and run by ProcessRunner without a shell, so a value such as
// `$(touch pwned)` reaches the program as one verbatim argument. zx is imported lazily: only a
// command that runs a script pays for loading it.

import type { ProcessRunner, RunOptions, RunResult } from './process.js';

export type Script = (pieces: TemplateStringsArray, ...values: ScriptValue[]) => Promise<ScriptResult>;
/** The run's result and the arguments it ran with (for messages). */
export interface ScriptResult extends RunResult {
  args: string[];
}
/** A word, or a list of words (each its own argument, like zx's array interpolation). */
export type ScriptValue = string | number | readonly (string | number)[];

export interface ScriptOptions extends RunOptions {
  runner: ProcessRunner;
  /** Arguments before the template's words on every call (tmux's `-L <socket>`). */
  leadingArgs?: readonly string[];
}

const MARK = '\u0000';
// Literal template text that would mean something else to Bash than it does here.
const SHELL_SYNTAX = /['"\\$`|&;<>()*?#\u0000]/;

/** A tag that runs `<cmd> <template words>` (zx is loaded on the first call of this). */
export async function loadScript(cmd: string, options: ScriptOptions): Promise<Script> {
  const { $ } = await import('zx/core');
  const build = $({ halt: true, quiet: true, verbose: false, quote: markArgument });
  const { runner, leadingArgs = [], ...runOptions } = options;
  return async (pieces, ...values) => {
    const bad = pieces.find((piece) => SHELL_SYNTAX.test(piece));
    if (bad !== undefined) throw new Error(`shell syntax in a script template (interpolate it instead): ${bad}`);
    // `.cmd` is the template alone: zx's prefix/postfix (`set -euo pipefail;`, ZX_PREFIX) are left out.
    const args = [...leadingArgs, ...parseMarkedCommand(build(pieces, ...values).cmd)];
    return { ...(await runner.run(cmd, args, runOptions)), args };
  };
}

function markArgument(value: string): string {
  return `${MARK}${Buffer.from(value, 'utf8').toString('base64')}${MARK}`;
}

/**
 * The argv of a command built with markArgument: literal text splits on whitespace; a marked
 * value is one verbatim piece of its word (`--format=${x}` stays one word; `${''}` is an empty
 * argument).
 */
export function parseMarkedCommand(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === MARK) {
      const end = command.indexOf(MARK, i + 1);
      word += Buffer.from(command.slice(i + 1, end), 'base64').toString('utf8');
      inWord = true;
      i = end;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
