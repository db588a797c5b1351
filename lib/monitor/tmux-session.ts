// `ralph --monitor`: one tmux window with three titled panes — the loop (left), its live
// output (right top) and the dashboard (right bottom) — in a new session, or in a new window
// of the current session when already inside tmux (no nesting). The session closes when the
// loop ends unless keepMonitor (Bash #176, #213).
//
// `ralph --monitor --parallel N` adds one window per unit of the plan, `unit-1` … `unit-K` (K:
// the plan's units, counted by the caller), each running `ralph-monitor --unit <n>`, which finds
// the unit in .ralph/parallel.json and follows its worktree's live.log. They are made here, at
// start, rather than by ralph when a unit starts: ralph then needs no tmux at all, a unit's
// window exists (with a placeholder) before its worktree does, and only a number is in the argv
// (a unit's slug and item are plan text). They close with the session; inside tmux the loop pane
// closes them with its own window.

import { appendFileSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RalphError } from '../errors.js';
import { systemClock, type Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import { findHostTool } from '../platform/find-executable.js';
import { loadScript, type ScriptValue } from '../platform/script.js';
import { writeFileNoFollow } from '../state/no-follow.js';
import { ralphPaths } from '../state/paths.js';
import { describeLoopEnv, formatEnvScript, selectLoopEnv } from './loop-env.js';
import { buildLoopScript, UNIT_WINDOWS_VAR } from './loop-script.js';
import { formatRunOutcome, readRunOutcome } from './run-outcome.js';
import { joinShellCommand, quoteForShell } from '../text/shell-quote.js';
import { attachInheritingTerminal, type AttachTerminal } from './tmux-attach.js';
import { IN_LAYOUT_ENV } from './in-layout.js';

export interface MonitorSessionOptions {
  projectDir: string;
  /** The user's `ralph` argv with --monitor/-m still in or already removed (both work). */
  forwardedArgv: string[];
  env: NodeJS.ProcessEnv;
  /** argv prefix that runs ralph, e.g. [process.execPath, '<abs>/bin/ralph']. */
  ralphCommand: string[];
  /** argv that runs the dashboard, e.g. [process.execPath, '<abs>/bin/ralph-monitor']. */
  monitorCommand: string[];
  keepMonitor: boolean;
  /** How many `unit-<n>` windows to open (ralph --parallel: one per unit of the plan); none when 0 or absent. */
  unitWindows?: number;
  /** tmux `-L` socket name (tests use a private server). */
  tmuxSocket?: string;
  stdoutIsTTY: boolean;
  /** $TMUX is set: open a window in the current session instead of a new session. */
  insideTmux: boolean;
  processRunner: ProcessRunner;
  logger: Logger;
  clock?: Clock;
  /** Prints the attach hint when not attaching (default: stdout). */
  write?: (text: string) => void;
  /** Runs `tmux attach-session` with the terminal inherited (default: real spawn). */
  attach?: AttachTerminal;
  /** Calls `listener` on Ctrl-C while the caller waits inside tmux; returns the unsubscribe (default: SIGINT). */
  onInterrupt?: (listener: () => void) => () => void;
}

function onProcessInterrupt(listener: () => void): () => void {
  process.on('SIGINT', listener);
  return () => process.off('SIGINT', listener);
}

export const WINDOW_NAME = 'Ralph: Loop | Output | Status';
export const PANE_TITLES = { loop: 'Ralph Loop', output: 'Claude Output', status: 'Status' } as const;
export const LIVE_LOG_PLACEHOLDER = '=== Ralph Live Output - Waiting for first loop... ===';
/** What the output pane shows in a parallel run, whose loops write to their worktrees' live.log. */
export const PARALLEL_LIVE_LOG_NOTE =
  "=== Ralph parallel run: each unit's live output is in its own window, unit-1, unit-2, ... (Ctrl+B then w lists them) ===";

/** The session it opened and, when the caller waited for the run (a terminal), its exit code. */
export interface MonitorSessionResult {
  sessionName: string;
  exitCode: number;
}

const STATUS_PANE_SHARE = '65%';
// tmux format strings (`#{…}`) are values: in a template's own text `#` would start a Bash comment.
const PANE_ID = '#{pane_id}';
// How long the launcher waits for the loop pane to read its environment file.
const LOADED_WAIT_MS = 30_000;
const WINDOW_AND_PANE_ID = '#{window_id} #{pane_id}';

/** tmux on ralph's socket; resolves with its trimmed stdout, throws RalphError when it fails. */
type Tmux = (pieces: TemplateStringsArray, ...values: ScriptValue[]) => Promise<string>;

/** How often the caller inside tmux checks whether the run in the other window has ended. */
const RESULT_POLL_MS = 500;

interface Placement {
  sessionName: string;
  windowId: string;
  loopPane: string;
  /** Where new windows go (`new-window -t`). */
  windowsTarget: string;
}

/**
 * Starts the monitor layout. On a terminal it then waits for the run (attached outside tmux,
 * in the calling pane inside tmux) and reports how it ended; otherwise it returns at once.
 */
export async function launchMonitorSession(options: MonitorSessionOptions): Promise<MonitorSessionResult> {
  const tmuxPath = findHostTool('tmux', options.env, [options.projectDir]);
  if (!tmuxPath) {
    throw new RalphError('tmux_missing', 'tmux is not installed', {
      exitCode: 1,
      hint: 'install tmux (apt install tmux / brew install tmux) or run ralph without --monitor',
    });
  }
  const socketArgs = options.tmuxSocket ? ['-L', options.tmuxSocket] : [];
  const tmuxArgv = [tmuxPath, ...socketArgs];
  const run = await loadScript(tmuxPath, { runner: options.processRunner, env: options.env, leadingArgs: socketArgs });
  const tmux: Tmux = async (pieces, ...values) => {
    const result = await run(pieces, ...values);
    if (result.code !== 0) {
      const why = result.spawnError?.message ?? (result.stderr.trim() || `exit code ${result.code}`);
      throw new RalphError('tmux_failed', `tmux ${result.args[socketArgs.length]} failed: ${why}`, {
        hint: 'check that tmux 3.1 or newer works here (tmux -V), or run ralph without --monitor',
      });
    }
    return result.stdout.trim();
  };

  const paths = ralphPaths(options.projectDir);
  // The output pane tails live.log; give it something to show until the first loop writes.
  const unitWindows = options.unitWindows ?? 0;
  if (existsSync(paths.ralphDir)) writeFileNoFollow(paths.liveLog, `${unitWindows > 0 ? PARALLEL_LIVE_LOG_NOTE : LIVE_LOG_PLACEHOLDER}\n`, 0o600);

  const loopEnv = selectLoopEnv(options.env);
  const envDir = mkdtempSync(join(tmpdir(), 'ralph-monitor-'));
  const envFile = join(envDir, 'env');
  // Only a caller on a terminal stays to read the outcome; a script gets the attach hint.
  const resultFile = options.stdoutIsTTY ? join(envDir, 'result') : undefined;
  writeFileSync(envFile, formatEnvScript(loopEnv), { mode: 0o600 });
  options.logger.debug(`Passing to the loop pane: ${describeLoopEnv(loopEnv).join(', ') || '(no ralph settings)'}`);

  let placement: Placement | undefined;
  try {
    const sessionName = options.insideTmux ? undefined : await pickSessionName(tmux, options.clock);
    const gate = `${sessionName ?? 'ralph'}-start-${process.pid}-${Math.floor((options.clock ?? Date).now())}`;
    const loopScript = buildLoopScript({
      tmuxArgv,
      ralphCommand: options.ralphCommand,
      forwardedArgv: options.forwardedArgv,
      keepMonitor: options.keepMonitor,
      gate,
      loaded: `${gate}-loaded`,
      envFile,
      resultFile,
      privateDir: envDir,
      sessionName,
    });
    placement = options.insideTmux ? await openWindowHere(tmux, options, loopScript) : await openSession(tmux, options, loopScript, sessionName!);

    const target = placement.windowId;
    const monitorPrefix = `export ${IN_LAYOUT_ENV}=1; ${options.env.NO_COLOR ? `export NO_COLOR=${quoteForShell(options.env.NO_COLOR)}; ` : ''}`;
    // Not `tail -F`: the agent can append escape sequences to live.log itself (a pane title, a
    // cleared screen, a line drawn over another); ralph-monitor --live shows it sanitized.
    const followLog = `${monitorPrefix}exec ${joinShellCommand([...options.monitorCommand, '--live'])}`;
    const outputPane = await tmux`split-window -h -d -P -F ${PANE_ID} -t ${placement.loopPane} -c ${options.projectDir} -- /bin/sh -c ${followLog}`;
    const dashboard = `${monitorPrefix}exec ${joinShellCommand(options.monitorCommand)}`;
    // The dashboard gets two thirds of the column: in 80x24 that is 14 rows, enough for the key facts.
    const statusPane =
      await tmux`split-window -v -d -l ${STATUS_PANE_SHARE} -P -F ${PANE_ID} -t ${outputPane} -c ${options.projectDir} -- /bin/sh -c ${dashboard}`;
    await tmux`select-pane -t ${placement.loopPane} -T ${PANE_TITLES.loop}`;
    await tmux`select-pane -t ${outputPane} -T ${PANE_TITLES.output}`;
    await tmux`select-pane -t ${statusPane} -T ${PANE_TITLES.status}`;
    await tmux`set-option -w -t ${target} pane-border-status top`;
    // tmux's default status-left (`[#S] `) is cut at 10 columns, which hides most of the name.
    if (!options.insideTmux) {
      await tmux`set-option -t ${target} status-left-length ${placement.sessionName.length + 3}`;
    }
    // Keep the finished loop's pane on screen for the post-mortem (#213).
    if (options.keepMonitor) await tmux`set-option -w -t ${target} remain-on-exit on`;
    await tmux`select-pane -t ${placement.loopPane}`;
    const unitWindowIds: string[] = [];
    for (let n = 1; n <= unitWindows; n++) {
      const follow = `${monitorPrefix}exec ${joinShellCommand([...options.monitorCommand, '--unit', String(n)])}`;
      unitWindowIds.push(
        await tmux`new-window -d -t ${placement.windowsTarget} -n ${`unit-${n}`} -c ${options.projectDir} -P -F ${'#{window_id}'} -- /bin/sh -c ${follow}`,
      );
    }
    // Inside tmux only the run's own window closes with the loop: it closes the unit windows too.
    if (options.insideTmux && unitWindowIds.length > 0) appendFileSync(envFile, `${UNIT_WINDOWS_VAR}=${quoteForShell(unitWindowIds.join(' '))}\n`);
    // Only now may the loop start: a loop that ends at once must not close the session before
    // the panes above exist (tmux remembers a signal sent before anyone waits).
    await tmux`wait-for -S ${gate}`;
    // The loop reads the caller's environment from envDir: once it says so, the folder is the
    // launcher's to remove (bounded, should the pane die before it can say so).
    await options.processRunner.run(tmuxPath, [...socketArgs, 'wait-for', `${gate}-loaded`], { env: options.env, timeoutMs: LOADED_WAIT_MS });
  } catch (error) {
    rmSync(envDir, { recursive: true, force: true });
    if (placement) await closePlacement(tmux, options, placement);
    throw error;
  }

  try {
    return await presentSession(tmux, tmuxArgv, options, placement, resultFile);
  } finally {
    if (resultFile) rmSync(envDir, { recursive: true, force: true });
  }
}

async function pickSessionName(tmux: Tmux, clock?: Clock): Promise<string> {
  const base = `ralph-${Math.floor((clock ?? Date).now() / 1000)}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    const exists = await tmux`has-session -t =${name}`.then(
      () => true,
      () => false,
    );
    if (!exists) return name;
  }
}

async function openSession(tmux: Tmux, options: MonitorSessionOptions, loopScript: string, sessionName: string): Promise<Placement> {
  // A detached session gets a roomy default size; attaching resizes it to the terminal.
  const out =
    await tmux`new-session -d -s ${sessionName} -n ${WINDOW_NAME} -c ${options.projectDir} -x 200 -y 50 -P -F ${WINDOW_AND_PANE_ID} -- /bin/sh -c ${loopScript}`;
  const [windowId = '', loopPane = ''] = out.split(' ');
  return { sessionName, windowId, loopPane, windowsTarget: `=${sessionName}:` };
}

async function openWindowHere(tmux: Tmux, options: MonitorSessionOptions, loopScript: string): Promise<Placement> {
  const here = options.env.TMUX_PANE ? ['-t', options.env.TMUX_PANE] : [];
  const [sessionId = '', ...nameParts] = (await tmux`display-message -p ${here} ${'#{session_id} #{session_name}'}`).split(' ');
  const out = await tmux`new-window -d -t ${sessionId}: -n ${WINDOW_NAME} -c ${options.projectDir} -P -F ${WINDOW_AND_PANE_ID} -- /bin/sh -c ${loopScript}`;
  const [windowId = '', loopPane = ''] = out.split(' ');
  return { sessionName: nameParts.join(' '), windowId, loopPane, windowsTarget: `${sessionId}:` };
}

async function closePlacement(tmux: Tmux, options: MonitorSessionOptions, placement: Placement): Promise<void> {
  const args = options.insideTmux ? ['kill-window', '-t', placement.windowId] : ['kill-session', '-t', `=${placement.sessionName}`];
  await tmux`${args}`.catch(() => undefined);
}

async function presentSession(
  tmux: Tmux,
  tmuxArgv: string[],
  options: MonitorSessionOptions,
  placement: Placement,
  resultFile: string | undefined,
): Promise<MonitorSessionResult> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const { sessionName, windowId } = placement;
  const socket = options.tmuxSocket ? ` -L ${quoteForShell(options.tmuxSocket)}` : '';
  if (!resultFile) {
    write(
      options.insideTmux
        ? `ralph --monitor: opened window ${windowId} in tmux session ${sessionName}\n`
        : `ralph --monitor: session ${sessionName} started; attach with: tmux${socket} attach -t ${sessionName}\n`,
    );
    return { sessionName, exitCode: 0 };
  }
  if (options.insideTmux) {
    // Showing the run's window is a courtesy: a run that already ended has closed it, and its
    // outcome is read below all the same.
    await tmux`select-window -t ${windowId}`.catch(() => undefined);
    write(`ralph --monitor: the run is in window ${windowId} of tmux session ${sessionName}; its outcome will be printed here when it ends\n`);
    // Ctrl-C here stops the waiting, not the run (another window): say where the run goes on.
    const interrupt = new AbortController();
    const unsubscribe = (options.onInterrupt ?? onProcessInterrupt)(() => interrupt.abort());
    let outcome;
    try {
      outcome = await waitForOutcome(tmux, resultFile, windowId, options.clock ?? systemClock, interrupt.signal);
    } finally {
      unsubscribe();
    }
    if (!outcome && interrupt.signal.aborted) {
      write(
        `\nralph --monitor: stopped waiting (Ctrl-C); the run goes on in window ${windowId} of tmux session ${sessionName}.` +
          ' Ctrl-C in its loop pane stops it; how it ends goes to .ralph/logs/ralph.log\n',
      );
      return { sessionName, exitCode: 130 };
    }
    if (!outcome) {
      write(`ralph --monitor: window ${windowId} closed before the run reported how it ended; see .ralph/logs/ralph.log\n`);
      return { sessionName, exitCode: 1 };
    }
    write(formatRunOutcome(outcome, options.keepMonitor ? `window ${windowId} stays open (--keep-monitor)` : `window ${windowId} has closed`));
    return { sessionName, exitCode: outcome.exitCode };
  }
  options.logger.info(`Attaching to tmux session ${sessionName} (detach: Ctrl+B then D; reattach: tmux${socket} attach -t ${sessionName})`);
  const attach = options.attach ?? attachInheritingTerminal;
  await attach(tmuxArgv[0]!, [...tmuxArgv.slice(1), 'attach-session', '-t', `=${sessionName}`], options.env);
  const outcome = readRunOutcome(resultFile);
  const alive = await tmux`has-session -t =${sessionName}`.then(
    () => true,
    () => false,
  );
  if (outcome) {
    const where = alive ? `session ${sessionName} stays open (reattach: tmux${socket} attach -t ${sessionName})` : 'the tmux session has closed';
    write(formatRunOutcome(outcome, where));
    return { sessionName, exitCode: outcome.exitCode };
  }
  if (alive) {
    write(`ralph --monitor: detached; the run goes on in tmux session ${sessionName} (reattach: tmux${socket} attach -t ${sessionName})\n`);
    return { sessionName, exitCode: 0 };
  }
  write(`ralph --monitor: session ${sessionName} closed before the run reported how it ended; see .ralph/logs/ralph.log\n`);
  return { sessionName, exitCode: 1 };
}

async function waitForOutcome(tmux: Tmux, resultFile: string, windowId: string, clock: Clock, interrupted: AbortSignal) {
  for (;;) {
    const outcome = readRunOutcome(resultFile);
    if (outcome || interrupted.aborted) return outcome;
    const open = await tmux`display-message -p -t ${windowId} ${'#{window_id}'}`.then(
      (id) => id === windowId,
      () => false,
    );
    // The pane writes the outcome before it closes the window: read once more after it is gone.
    if (!open) return readRunOutcome(resultFile);
    await clock.sleep(RESULT_POLL_MS, interrupted);
  }
}
