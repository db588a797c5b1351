// Ctrl-C, SIGTERM, SIGHUP (terminal closed) and SIGQUIT stop the loop (the Bash tool ignored
// them): the first signal aborts the current wait or agent run and lets the loop record
// `interrupted` and exit 128 + the signal number (130, 143, 129, 131); a second Ctrl-C, SIGTERM
// or SIGQUIT to the process exits at once, after the caller's clean-up.

import { constants } from 'node:os';

export interface StopSignal {
  readonly signal: AbortSignal;
  /** The signal that stopped the run, if any. */
  readonly received: NodeJS.Signals | undefined;
  dispose(): void;
}

export interface StopSignalOptions {
  onFirst?: (signal: NodeJS.Signals) => void;
  /** Clean-up on a second signal, just before the process exits at once (only when listening to the process itself). */
  onSecond?: (signal: NodeJS.Signals) => void;
  /** A stand-in for the process to listen to; a second signal on it ends nothing (its owner decides). */
  process?: SignalSource;
}

/**
 * What the stop signal listens to: the process itself, or an emitter standing in for it (a
 * parallel unit, a fleet job's time budget, a test) that a controller emits signals on.
 */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

export function installStopSignal(options: StopSignalOptions = {}): StopSignal {
  const proc = options.process ?? process;
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (received) {
      // A closing terminal's shell hangs up its jobs again after the kernel did: a repeated
      // SIGHUP is no request to skip the cleanup (the agent's SIGKILL after the grace period).
      if (signal === 'SIGHUP' || options.process) return;
      // The one exit below the command line: the run is still unwinding from the first signal, so
      // no exit code can be returned up to it; the user asked twice, and gets the prompt back now.
      options.onSecond?.(signal);
      process.exit(exitCodeForSignal(signal));
    }
    received = signal;
    options.onFirst?.(signal);
    controller.abort();
  };
  for (const name of STOP_SIGNALS) proc.on(name, handler);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      for (const name of STOP_SIGNALS) proc.off(name, handler);
    },
  };
}

/** The shell's convention: 128 + the signal number (SIGINT 130, SIGTERM 143, SIGHUP 129, SIGQUIT 131). */
export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}
