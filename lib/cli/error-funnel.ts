// The one place that turns an error into what the user sees and the process exit code:
// `Error: <message>`, optional detail lines, a one-line hint, and a stack only with --debug.

import { EXIT, isRalphError } from '../errors.js';

export interface FunnelOptions {
  debug?: boolean;
  write?: (text: string) => void;
}

/** Prints the error and returns the exit code to use. */
export function reportError(error: unknown, options: FunnelOptions = {}): number {
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  if (isRalphError(error)) {
    write(`Error: ${error.message}\n`);
    for (const line of error.details) write(`${line}\n`);
    if (error.hint) write(`hint: ${error.hint}\n`);
    if (options.debug && error.stack) write(`${error.stack}\n`);
    return error.exitCode;
  }
  const system = describeSystemError(error);
  if (system) {
    write(`Error: ${system.message}\n`);
    write(`hint: ${system.hint}\n`);
    if (options.debug) write(`${(error as Error).stack ?? ''}\n`);
    return EXIT.couldNotRun;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(`Error: internal error: ${message}\n`);
  write(options.debug ? `${(error as Error)?.stack ?? ''}\n` : 'hint: run again with --debug for details\n');
  return EXIT.couldNotRun;
}

/** True when argv asks for stack traces (`--debug` or RALPH_DEBUG=1). */
export function wantsDebug(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  return argv.includes('--debug') || env.RALPH_DEBUG === '1';
}

/** Runs a command and returns its exit code; an error is printed as reportError prints it, never thrown. */
export async function exitCodeOf(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    return reportError(error, { debug: wantsDebug(process.argv.slice(2)) });
  }
}

/** Runs a command's main function and exits with its code, funnelling any error. */
export async function runMain(main: (argv: string[]) => Promise<number>): Promise<void> {
  const argv = process.argv.slice(2);
  endQuietlyOnClosedPipe(process.stdout);
  endQuietlyOnClosedPipe(process.stderr);
  let code: number;
  try {
    code = await main(argv);
  } catch (error) {
    code = reportError(error, { debug: wantsDebug(argv) });
  }
  process.exitCode = code;
}

/**
 * A reader that stopped reading (`ralph --status | head`) is no error of ours: the output is
 * simply not wanted any more, so the command ends with the code it had, without a stack trace.
 * A loop run is different (keepRunningWithoutOutput): it goes on, and stops its agent and
 * releases its lock as it would have.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (outputOptional && (error.code === 'EPIPE' || error.code === 'EIO')) return;
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}

let outputOptional = false;

/**
 * From now on a closed terminal or pipe does not end the process: the loop's output still goes
 * to ralph.log, and ending at once would leave the agent running and the project locked.
 */
export function keepRunningWithoutOutput(): void {
  outputOptional = true;
}

const SYSTEM_ERRORS: Record<string, { what: string; hint: string }> = {
  ENOSPC: { what: 'No space left on device', hint: 'free some disk space (old .ralph/logs/claude_output_*.log files can go), then run again' },
  EROFS: { what: 'Read-only file system', hint: 'run ralph where the project (and its .ralph/ folder) can be written' },
  EACCES: { what: 'Permission denied', hint: 'check the owner and mode of the project and its .ralph/ folder' },
  EPERM: { what: 'Operation not permitted', hint: 'check the owner and mode of the project and its .ralph/ folder' },
  EMFILE: { what: 'Too many open files', hint: 'raise the open-file limit (ulimit -n) or close other programs, then run again' },
};

/** Errors from the operating system that a person can fix: say what, where, and how. */
function describeSystemError(error: unknown): { message: string; hint: string } | undefined {
  const e = error as NodeJS.ErrnoException | undefined;
  const known = e?.code ? SYSTEM_ERRORS[e.code] : undefined;
  if (!known) return undefined;
  return { message: e?.path ? `${known.what}: ${e.path}` : known.what, hint: known.hint };
}
