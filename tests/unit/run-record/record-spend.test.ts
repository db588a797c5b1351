import { describe, expect, it } from 'vitest';
import { cutOffRunningAttempts, finishAttempt, startAttempt } from '../../../lib/run-record/attempts.js';
import { spendFromRecord } from '../../../lib/run-record/record-spend.js';
import { newRecord, T0 } from './record-fixture.js';
import { useTimeZone } from '../../helpers/time-zone.js';

const MIN = 60_000;
// Hour keys are local time: pin the zone so the hours below are the hours meant.
useTimeZone('UTC');

describe('spendFromRecord (what the budgets count when .run_state is unreadable)', () => {
  it('counts every attempt as a call, a cut-off one of unknown cost, and sums costs, tokens and time', () => {
    let record = startAttempt(newRecord(), 1, T0);
    record = finishAttempt(record, {
      loop: 1,
      now: T0 + 2 * MIN,
      outcome: 'unverified',
      agentResult: 'ok',
      costUsd: 1,
      tokens: { input: 100, output: 10, cache_read: 1000, cache_creation: 5 },
    });
    record = startAttempt(record, 2, T0 + 3 * MIN);
    record = cutOffRunningAttempts(record, T0 + 4 * MIN).record;
    record = startAttempt(record, 2, T0 + 5 * MIN);
    record = finishAttempt(record, { loop: 2, now: T0 + 6 * MIN, outcome: 'unverified', agentResult: 'ok', costUsd: 1.5, tokens: { input: 50, output: 5 } });

    const { spend, activeMs } = spendFromRecord(record, T0 + 7 * MIN);
    expect(spend.run).toEqual({
      tokens: { input: 150, output: 15, cacheRead: 1000, cacheCreation: 5 },
      costUsd: 2.5,
      loops: 3,
      unknownCostLoops: 1,
      inFlight: false,
    });
    expect(spend.hour).toEqual({ key: '2026113003', tokens: 165, costUsd: 2.5 });
    expect(activeMs).toBe(3 * MIN);
  });

  it("counts only this hour's attempts in the hourly window", () => {
    let record = startAttempt(newRecord(), 1, T0);
    record = finishAttempt(record, { loop: 1, now: T0 + MIN, outcome: 'unverified', agentResult: 'ok', costUsd: 1, tokens: { input: 100, output: 10 } });
    const { spend } = spendFromRecord(record, Date.parse('2026-11-30T04:05:00Z'));
    expect(spend.hour).toEqual({ key: '2026113004', tokens: 0, costUsd: 0 });
    expect(spend.run.loops).toBe(1);
  });
});
