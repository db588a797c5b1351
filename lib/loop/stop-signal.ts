// Ctrl-C and SIGTERM stop the loop (the Bash tool ignored them): the first signal aborts the
// current wait or agent run and lets the loop record `interrupted` and exit 130/143; a second
// Ctrl-C exits at once.

export interface StopSignal {
  readonly signal: AbortSignal;
  /** The signal that stopped the run, if any. */
  readonly received: NodeJS.Signals | undefined;
  dispose(): void;
}

export interface StopSignalOptions {
  onFirst?: (signal: NodeJS.Signals) => void;
  /** Called on a second signal; defaults to exiting the process immediately. */
  onSecond?: (signal: NodeJS.Signals) => void;
  process?: Pick<NodeJS.Process, 'on' | 'off' | 'exit'>;
}

export function installStopSignal(options: StopSignalOptions = {}): StopSignal {
  const proc = options.process ?? process;
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (received) {
      if (options.onSecond) options.onSecond(signal);
      else proc.exit(exitCodeForSignal(signal));
      return;
    }
    received = signal;
    options.onFirst?.(signal);
    controller.abort();
  };
  proc.on('SIGINT', handler);
  proc.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      proc.off('SIGINT', handler);
      proc.off('SIGTERM', handler);
    },
  };
}

export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : 143;
}
