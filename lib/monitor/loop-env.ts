// The environment handed to the loop pane under `ralph --monitor`. A tmux pane otherwise gets
// the tmux *server's* environment (fixed when the server started, possibly days ago), so
// settings exported in the shell that ran `ralph --monitor` would silently not apply (the Bash
// tool's behaviour). We pass the caller's whole environment minus what belongs to the terminal
// or to tmux itself, through a 0600 file the pane sources and deletes: values never appear on
// a command line (where `ps` shows them) or in a log — only names are logged.

import { CONFIG_KEYS, envNamesFor } from '../config/schema.js';
import { quoteForShell } from '../text/shell-quote.js';

// Describe the terminal the user started from, not the pane; tmux sets its own.
const TERMINAL_VARS = new Set([
  'TERM',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'TERM_SESSION_ID',
  'COLORTERM',
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'WINDOWID',
  'COLUMNS',
  'LINES',
  'SHLVL',
  'PWD',
  'OLDPWD',
  '_',
  'VTE_VERSION',
]);
const TERMINAL_PREFIXES = ['ITERM_', 'KITTY_', 'WEZTERM_', 'ALACRITTY_', 'KONSOLE_'];
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variables to pass to the loop, by name. */
export function selectLoopEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !SHELL_NAME.test(name)) continue;
    if (TERMINAL_VARS.has(name) || TERMINAL_PREFIXES.some((p) => name.startsWith(p))) continue;
    out[name] = value;
  }
  return out;
}

const RALPH_CONFIG_NAMES = new Set(CONFIG_KEYS.flatMap((key) => envNamesFor(key)));
const RALPH_PREFIXES = ['RALPH_', 'CLAUDE_', 'ANTHROPIC_', 'CB_', 'FAKE_CLAUDE_'];

/** Names (never values) of the passed variables that configure ralph or the agent, for logs. */
export function describeLoopEnv(vars: Record<string, string>): string[] {
  return Object.keys(vars)
    .filter((name) => RALPH_CONFIG_NAMES.has(name) || RALPH_PREFIXES.some((p) => name.startsWith(p)))
    .sort();
}

/** `export NAME='value'` lines for a POSIX shell to source. */
export function formatEnvScript(vars: Record<string, string>): string {
  return Object.entries(vars)
    .filter(([name, value]) => SHELL_NAME.test(name) && !value.includes('\0'))
    .map(([name, value]) => `export ${name}=${quoteForShell(value)}\n`)
    .join('');
}
