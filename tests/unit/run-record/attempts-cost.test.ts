// A loop starts and finishes one attempt: that looks at the newest attempt only, never at all
// the attempts the run has made, so the loop's cost does not grow with the run's length. The
// attempts before it are read through a counter of the fields read.

import { describe, expect, it } from 'vitest';
import { cutOffRunningAttempts, finishAttempt, startAttempt } from '../../../lib/run-record/attempts.js';
import type { Attempt, RunRecord } from '../../../lib/run-record/record-schema.js';
import { newRecord, T0 } from './record-fixture.js';

/** A record with `count` finished attempts whose `state` and `loop` count their reads. */
function countedRecord(count: number): { record: RunRecord; reads: () => number } {
  let reads = 0;
  let record = startAttempt(newRecord(), 1, T0);
  record = finishAttempt(record, { loop: 1, now: T0 + 1, outcome: 'unverified', agentResult: 'ok' });
  const done = record.attempts[0]!;
  const attempts = Array.from({ length: count }, (_, i): Attempt => {
    const attempt = { ...done };
    Object.defineProperty(attempt, 'state', { enumerable: true, get: () => (reads++, 'finished') });
    Object.defineProperty(attempt, 'loop', { enumerable: true, get: () => (reads++, i + 1) });
    return attempt;
  });
  return { record: { ...record, attempts }, reads: () => reads };
}

describe('an attempt per loop', () => {
  it('starting and finishing the next attempt reads no earlier attempt, after 5,000 of them', () => {
    const { record, reads } = countedRecord(5000);
    const started = startAttempt(record, 5001, T0 + 10);
    const finished = finishAttempt(started, { loop: 5001, now: T0 + 20, outcome: 'unverified', agentResult: 'ok' });
    // The newest finished attempt is looked at once, to see that none is running.
    expect(reads()).toBeLessThanOrEqual(1);
    expect(finished.attempts).toHaveLength(5001);
    expect(finished.attempts.at(-1)).toMatchObject({ loop: 5001, state: 'finished' });
  });

  it('still refuses a second running attempt, and finishing one that is not running', () => {
    const running = startAttempt(newRecord(), 1, T0);
    expect(() => startAttempt(running, 2, T0)).toThrow(expect.objectContaining({ code: 'attempt-running' }));
    expect(() => finishAttempt(running, { loop: 2, now: T0, outcome: 'unverified', agentResult: 'ok' })).toThrow(
      expect.objectContaining({ code: 'no-such-attempt' }),
    );
    const cut = cutOffRunningAttempts(running, T0).record;
    expect(() => finishAttempt(cut, { loop: 1, now: T0, outcome: 'unverified', agentResult: 'ok' })).toThrow(
      expect.objectContaining({ code: 'no-such-attempt' }),
    );
    expect(startAttempt(cut, 2, T0).attempts.map((a) => [a.loop, a.state])).toEqual([
      [1, 'cut-off'],
      [2, 'running'],
    ]);
  });
});
