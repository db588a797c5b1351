// RalphError: the one error type domain code throws when something could not even start.
// It carries a stable code, the exit code the CLI should use and a one-line hint; the CLI
// error funnel (lib/cli/error-funnel.ts) is the only place that prints it.

export const EXIT = {
  ok: 0,
  couldNotRun: 1,
  halted: 2,
  limit: 3,
  sighup: 129,
  sigint: 130,
  sigquit: 131,
  sigterm: 143,
} as const;

/**
 * The process exit code of a loop that stopped with `code`, in the EXIT_CODES style. `ralph`
 * tells each stop apart (the table above). In the `bash` style a halt and a stop at a limit exit
 * 0 like a finished run, for scripts written against the Bash tool; errors and signals keep their
 * codes, since the Bash tool does not exit 0 for those either.
 */
export function exitCodeInStyle(code: number, style: string): number {
  return style === 'bash' && (code === EXIT.halted || code === EXIT.limit) ? EXIT.ok : code;
}

/** Each signal an interrupted ralph exits by (128 + its number), as people name it. */
const SIGNAL_NAMES: Readonly<Record<number, string>> = {
  [EXIT.sighup]: 'SIGHUP',
  [EXIT.sigint]: 'Ctrl-C',
  [EXIT.sigquit]: 'SIGQUIT',
  [EXIT.sigterm]: 'SIGTERM',
};

/**
 * The README's exit-code table, in words: the one wording of an exit code, in the run summary
 * (status.json `run_summary.outcome`) and in what `ralph --monitor` prints once its session closed.
 */
export function describeExitCode(code: number): string {
  switch (code) {
    case EXIT.ok:
      return 'done';
    case EXIT.couldNotRun:
      return 'could not run';
    case EXIT.halted:
      return 'halted by a guard';
    case EXIT.limit:
      return 'stopped at a limit';
  }
  if (code > 128 && code < 160) return `interrupted (${SIGNAL_NAMES[code] ?? `signal ${code - 128}`})`;
  return 'ended unexpectedly';
}

export interface RalphErrorOptions {
  exitCode?: number;
  hint?: string;
  cause?: unknown;
  /** Extra lines printed after the message (e.g. a list of config problems). */
  details?: string[];
}

export class RalphError extends Error {
  readonly code: string;
  readonly exitCode: number;
  readonly hint?: string;
  readonly details: string[];

  constructor(code: string, message: string, options: RalphErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RalphError';
    this.code = code;
    this.exitCode = options.exitCode ?? EXIT.couldNotRun;
    this.hint = options.hint;
    this.details = options.details ?? [];
  }
}

export function isRalphError(error: unknown): error is RalphError {
  return error instanceof RalphError;
}
