import { describe, expect, it } from 'vitest';
import { finishAttempt, startAttempt } from '../../../lib/run-record/attempts.js';
import { transitionRun } from '../../../lib/run-record/run-record.js';
import { decideRunStart } from '../../../lib/run-record/run-start.js';
import { runRecordSchema, type RunRecord } from '../../../lib/run-record/record-schema.js';
import { newRecord, T0 } from './record-fixture.js';

function twoDoneThirdRunning(): RunRecord {
  let record = newRecord();
  for (const loop of [1, 2]) record = finishAttempt(startAttempt(record, loop, T0), { loop, now: T0 + 1, outcome: 'stuck', agentResult: 'ok' });
  return startAttempt(record, 3, T0 + 2);
}

describe('decideRunStart', () => {
  it('starts a new run when there is none, or the last one ended', () => {
    expect(decideRunStart({ latest: undefined, fresh: false, now: T0 })).toMatchObject({ kind: 'new', why: 'no-earlier-run', superseded: null });
    const ended = transitionRun(transitionRun(newRecord(), 'active', 'x', T0), 'converged', 'x', T0);
    expect(decideRunStart({ latest: ended, fresh: false, now: T0 })).toEqual({
      kind: 'new',
      why: 'last-run-ended',
      superseded: null,
      message: 'Starting a new run (last run 20261130T031000Z-abc123 ended converged)',
    });
  });

  it('resumes an unfinished run at the cut-off loop with earlier attempts intact, and notes the resume', () => {
    const latest = twoDoneThirdRunning();
    const decision = decideRunStart({ latest, fresh: false, now: T0 + 10_000 });
    if (decision.kind !== 'resume') throw new Error('expected resume');
    expect(decision.nextLoop).toBe(3);
    expect(decision.cutOff).toEqual([3]);
    expect(decision.record.attempts.slice(0, 2)).toEqual(latest.attempts.slice(0, 2));
    expect(decision.record.attempts[2]!.state).toBe('cut-off');
    expect(decision.record.resumes).toEqual([{ at: '2026-11-30T03:10:10.000Z', next_loop: 3, cut_off_loops: [3] }]);
    expect(decision.record.status).toBe('active');
    expect(decision.message).toBe(
      'Resuming run 20261130T031000Z-abc123 at loop 3 (2 earlier attempts kept; the attempt of loop 3 was cut off and runs again); use --fresh to start a new run',
    );
    expect(runRecordSchema.safeParse(decision.record).success).toBe(true);
  });

  it('resumes a run stopped between loops at the next loop', () => {
    const latest = finishAttempt(startAttempt(newRecord(), 1, T0), { loop: 1, now: T0, outcome: 'stuck', agentResult: 'ok' });
    expect(decideRunStart({ latest, fresh: false, now: T0 })).toMatchObject({ kind: 'resume', nextLoop: 2, cutOff: [] });
    expect(decideRunStart({ latest: newRecord(), fresh: false, now: T0 })).toMatchObject({ kind: 'resume', nextLoop: 1 });
  });

  it('--fresh starts a new run and closes the unfinished one as failed', () => {
    const decision = decideRunStart({ latest: twoDoneThirdRunning(), fresh: true, now: T0 });
    if (decision.kind !== 'new') throw new Error('expected new');
    expect(decision.why).toBe('fresh');
    expect(decision.superseded!.status).toBe('failed');
    expect(decision.superseded!.status_history.at(-1)!.reason).toBe('superseded: ralph --fresh started a new run');
    expect(decision.superseded!.attempts[2]!.state).toBe('cut-off');
    expect(decision.message).toBe('Starting a new run (--fresh); unfinished run 20261130T031000Z-abc123 (2 finished attempts) closed as failed');
  });
});
