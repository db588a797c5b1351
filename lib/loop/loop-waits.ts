// How the loop waits and how it ends: a wait with a countdown the user sees, the stop a signal
// brings, and the `run:finished` event every stop sends.

import { formatCountdown } from '../limits/countdown.js';
import { resetRunSession } from '../sessions/agent-session.js';
import { stopRun as stop, type Run, type RunStop } from './run.js';
import { saveUnfinishedAttempt } from '../run-record/record-steps.js';
import { waitUntil } from '../limits/wait-until.js';
import { exitCodeForSignal } from './stop-signal.js';

/** Waits until `resumeAt` with a countdown (a line on a terminal, a log line a minute else); false: a stop signal came first. */
export async function waitWithCountdown(run: Run, resumeAt: number, kind: 'rate' | 'usage' | 'backoff', reason: string): Promise<boolean> {
  const { deps } = run;
  run.events.emit('limit:waiting', { kind, resumeAt, reason });
  const tty = deps.stderr.isTTY;
  let lastLogged = Number.POSITIVE_INFINITY;
  const done = await waitUntil(resumeAt, {
    clock: deps.clock,
    signal: run.stop.signal,
    tickMs: tty ? 1000 : 60_000,
    onTick: (remaining) => {
      if (tty) deps.stderr.write(`\r\x1b[2K${reason} — time until retry: ${formatCountdown(remaining)}`);
      else if (lastLogged - remaining >= 60_000 || lastLogged === Number.POSITIVE_INFINITY) {
        lastLogged = remaining;
        deps.logger.info(`${reason} — time until retry: ${formatCountdown(remaining)}`);
      }
    },
  });
  if (tty) deps.stderr.write('\r\x1b[2K');
  return done;
}

/** A stop signal ended the run: the attempt saved, the session reset, `run:finished` told. */
export function interrupted(run: Run): RunStop {
  const signal = run.stop.received ?? 'SIGINT';
  run.deps.logger.warn('Ralph loop interrupted. Cleaning up...');
  saveUnfinishedAttempt(run);
  resetRunSession(run, 'manual_interrupt', run.state.loopCount);
  return finish(run, stop(exitCodeForSignal(signal), 'stopped', 'interrupted', 'interrupted'));
}

/** The run stops with `result`: its subscribers hear it. */
export function finish(run: Run, result: RunStop): RunStop {
  run.events.emit('run:finished', { status: result.status, exitReason: result.exitReason, lastAction: result.lastAction, exitCode: result.exitCode });
  return result;
}
