// What the loop pane's /bin/sh runs under `ralph --monitor`: wait for the layout, load the
// caller's environment from the private file and delete it, run ralph, hand its exit code and
// last screen lines back to the caller (run-outcome.ts), then close the session (or window)
// unless kept. When ralph could not even run (exit 1: missing agent CLI, bad config) closing
// at once would hide its error message, so the pane waits for Enter first.

import { buildLoopArgv } from './loop-argv.js';
import { joinShellCommand, quoteForShell } from '../text/shell-quote.js';

export interface LoopScriptInput {
  /** tmux argv prefix (path and `-L socket`). */
  tmuxArgv: string[];
  ralphCommand: string[];
  forwardedArgv: string[];
  keepMonitor: boolean;
  /** The wait-for channel the launcher signals once the panes exist. */
  gate: string;
  /** The channel this script signals once it has read (and removed) the environment file. */
  loaded: string;
  envFile: string;
  /** Where the outcome goes; absent when nobody waits for it (then `privateDir` is removed). */
  resultFile?: string;
  privateDir: string;
  /** Set outside tmux: the session to close; otherwise the pane's own window closes. */
  sessionName?: string;
}

/** The shell variable (set by the env file inside tmux) that lists the unit windows to close with the loop's. */
export const UNIT_WINDOWS_VAR = 'ralph_unit_windows';

/** Screen lines (history included) the pane keeps for the outcome; run-outcome.ts trims them. */
const CAPTURE_HISTORY = 200;

export function buildLoopScript(input: LoopScriptInput): string {
  const tmux = joinShellCommand(input.tmuxArgv);
  const loop = joinShellCommand([...input.ralphCommand, ...buildLoopArgv(input.forwardedArgv)]);
  const handOver = input.resultFile
    ? [
        `{ printf '%s\\n' "$status"; ${tmux} capture-pane -p -J -S -${CAPTURE_HISTORY} -t "$TMUX_PANE"; } > ${quoteForShell(`${input.resultFile}.tmp`)} 2>/dev/null &&` +
          ` mv ${quoteForShell(`${input.resultFile}.tmp`)} ${quoteForShell(input.resultFile)} 2>/dev/null`,
      ]
    : [];
  const close = input.keepMonitor
    ? [`printf '\\n[ralph exited with code %s; the monitor stays open (--keep-monitor)]\\n' "$status"`]
    : [
        `if [ "$status" -eq 1 ]; then printf '\\n[ralph could not run (exit code 1); press Enter to close]\\n'; read _ignored; fi`,
        ...(input.sessionName
          ? [`${tmux} kill-session -t ${quoteForShell(`=${input.sessionName}`)}`]
          : [`for w in $${UNIT_WINDOWS_VAR}; do ${tmux} kill-window -t "$w" 2>/dev/null; done`, `${tmux} kill-window -t "$TMUX_PANE"`]),
      ];
  return [
    // Ctrl-C in this pane goes to the whole foreground group: ralph stops its run (exit 130),
    // and the shell, which would otherwise die of the same SIGINT before closing the session,
    // carries on. A trap with a command (not '') leaves ralph's own SIGINT handling intact.
    'trap : INT',
    `${tmux} wait-for ${quoteForShell(input.gate)}`,
    // A missing file would abort sh at `.`, before the launcher hears back: test it first.
    `env_loaded=0; [ -r ${quoteForShell(input.envFile)} ] && . ${quoteForShell(input.envFile)} && env_loaded=1`,
    input.resultFile ? `rm -f ${quoteForShell(input.envFile)}` : `rm -rf ${quoteForShell(input.privateDir)}`,
    // The launcher may remove the private folder only after this (a caller that detaches at once).
    `${tmux} wait-for -S ${quoteForShell(input.loaded)}`,
    '[ "$env_loaded" = 1 ] || exit 1',
    loop,
    'status=$?',
    ...handOver,
    ...close,
  ].join('\n');
}
