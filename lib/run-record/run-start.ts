// Continue the last run or start a new one. When the last run has not ended, `ralph` continues
// it: loop numbers go on after the last finished attempt, an attempt that was cut off runs
// again, and earlier attempts stay as they were. `--fresh` starts a new run and closes the
// unfinished one as failed ("superseded"). Every decision comes with a line for the log. Pure.

import { cutOffRunningAttempts, nextLoopNumber } from './attempts.js';
import { isoTime, transitionRun } from './run-record.js';
import { isTerminalStatus, type RunRecord } from './record-schema.js';

export type RunStartDecision =
  | {
      kind: 'resume';
      /** The record with cut-off attempts marked and the resume noted; save it. */
      record: RunRecord;
      nextLoop: number;
      cutOff: number[];
      message: string;
    }
  | {
      kind: 'new';
      why: 'no-earlier-run' | 'last-run-ended' | 'fresh';
      /** The unfinished run --fresh closed (status failed); save it. */
      superseded: RunRecord | null;
      message: string;
    };

export interface DecideRunStartOptions {
  /** The newest record (findLatestRunRecord), if any. */
  latest: RunRecord | undefined;
  fresh: boolean;
  now: number;
}

export function decideRunStart(options: DecideRunStartOptions): RunStartDecision {
  const { latest, fresh, now } = options;
  if (!latest) return { kind: 'new', why: 'no-earlier-run', superseded: null, message: 'Starting a new run (no earlier run recorded)' };
  if (isTerminalStatus(latest.status)) {
    const how = latest.status === 'exhausted' ? `stopped at its budget: ${latest.status_history.at(-1)?.reason ?? 'budget reached'}` : `ended ${latest.status}`;
    return { kind: 'new', why: 'last-run-ended', superseded: null, message: `Starting a new run (last run ${latest.run_id} ${how})` };
  }
  const done = latest.attempts.filter((a) => a.state === 'finished').length;
  if (fresh) {
    const { record } = cutOffRunningAttempts(latest, now);
    const superseded = transitionRun(record, 'failed', 'superseded: ralph --fresh started a new run', now);
    return {
      kind: 'new',
      why: 'fresh',
      superseded,
      message: `Starting a new run (--fresh); unfinished run ${latest.run_id} (${plural(done, 'finished attempt')}) closed as failed`,
    };
  }
  const { record, cutOff } = cutOffRunningAttempts(latest, now);
  const nextLoop = nextLoopNumber(record);
  const resumed: RunRecord = {
    ...record,
    updated_at: isoTime(now),
    resumes: [...record.resumes, { at: isoTime(now), next_loop: nextLoop, cut_off_loops: cutOff }],
  };
  const cutText = cutOff.length > 0 ? `; the attempt of loop ${cutOff.join(', ')} was cut off and runs again` : '';
  return {
    kind: 'resume',
    record: resumed,
    nextLoop,
    cutOff,
    message: `Resuming run ${latest.run_id} at loop ${nextLoop} (${plural(done, 'earlier attempt')} kept${cutText}); use --fresh to start a new run`,
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
