import { describe, expect, it } from 'vitest';
import { finishAttempt, startAttempt } from '../../../lib/run-record/attempts.js';
import { addObservation } from '../../../lib/run-record/observations.js';
import { recordGap, gapSample } from '../../../lib/run-record/gap.js';
import { canTransition, newRunId, newRunIdAfter, RunRecordError, runStatusForExit, transitionRun } from '../../../lib/run-record/run-record.js';
import { RUN_STATUSES, runRecordSchema, type RunStatus } from '../../../lib/run-record/record-schema.js';
import { newRecord, T0 } from './record-fixture.js';

const LEGAL: Array<[RunStatus, RunStatus]> = [
  ['pending', 'active'],
  ['pending', 'failed'],
  ['active', 'converged'],
  ['active', 'escalated'],
  ['active', 'failed'],
  ['active', 'exhausted'],
];

describe('run status state machine', () => {
  it('allows exactly pending → active|failed and active → converged|escalated|failed|exhausted', () => {
    for (const from of RUN_STATUSES) {
      for (const to of RUN_STATUSES) {
        const legal = LEGAL.some(([f, t]) => f === from && t === to);
        expect(canTransition(from, to), `${from} → ${to}`).toBe(legal);
      }
    }
  });

  it('records each transition with its time and reason', () => {
    const active = transitionRun(newRecord(), 'active', 'run started', T0 + 1000);
    const done = transitionRun(active, 'converged', 'verification passed', T0 + 2000);
    expect(done.status).toBe('converged');
    expect(done.status_history).toEqual([
      { status: 'pending', at: '2026-11-30T03:10:00.000Z', reason: 'run created' },
      { status: 'active', at: '2026-11-30T03:10:01.000Z', reason: 'run started' },
      { status: 'converged', at: '2026-11-30T03:10:02.000Z', reason: 'verification passed' },
    ]);
    expect(done.updated_at).toBe('2026-11-30T03:10:02.000Z');
    expect(runRecordSchema.safeParse(done).success).toBe(true);
  });

  it('rejects illegal transitions', () => {
    expect(() => transitionRun(newRecord(), 'converged', 'x', T0)).toThrow(RunRecordError);
    const active = transitionRun(newRecord(), 'active', 'x', T0);
    expect(() => transitionRun(active, 'pending', 'x', T0)).toThrow(/cannot go from active to pending/);
    expect(() => transitionRun(active, 'active', 'x', T0)).toThrow(RunRecordError);
  });

  it('makes ended runs immutable: no transition, attempt, observation or gap sample', () => {
    for (const end of ['converged', 'escalated', 'failed'] as const) {
      const ended = transitionRun(startAttempt(newRecord(), 1, T0), end, 'end', T0);
      const attempts = [
        () => transitionRun(ended, 'failed', 'x', T0),
        () => startAttempt(ended, 2, T0),
        () => finishAttempt(ended, { loop: 1, now: T0, outcome: 'stuck', agentResult: 'ok' }),
        () => addObservation(ended, { loop: 1, now: T0, source: 'test', exitCode: 1, durationMs: 1, raw: 'x' }),
        () => recordGap(ended, gapSample(1, 1, 1), T0),
      ];
      for (const change of attempts) {
        expect(change).toThrow(expect.objectContaining({ code: 'terminal-record' }));
      }
    }
  });

  it('does not mutate the record it is given', () => {
    const record = newRecord();
    const copy = structuredClone(record);
    transitionRun(record, 'active', 'x', T0);
    startAttempt(record, 1, T0);
    expect(record).toEqual(copy);
  });
});

describe('runStatusForExit', () => {
  it('maps exit codes to the end of a run; limits and interrupts keep it resumable', () => {
    expect([0, 1, 2, 3, 130, 143].map(runStatusForExit)).toEqual(['converged', 'failed', 'escalated', null, null, null]);
  });
});

describe('newRunId', () => {
  it('starts with the UTC creation time so names sort by age', () => {
    expect(newRunId(T0, () => 'a1b2c3')).toBe('20261130T031000Z-a1b2c3');
    expect(newRunId(T0)).toMatch(/^20261130T031000Z-[0-9a-f]{6}$/);
    expect(newRunId(T0) < newRunId(T0 + 1000)).toBe(true);
  });
});

describe('newRunIdAfter', () => {
  it('sorts after the newest record even within the same second or after the clock stepped back', () => {
    const random = () => '000000';
    expect(newRunIdAfter(undefined, T0, random)).toBe('20261130T031000Z-000000');
    expect(newRunIdAfter('20261130T030000Z-ffffff', T0, random)).toBe('20261130T031000Z-000000');
    // Same second, lower random part: the next second instead.
    expect(newRunIdAfter('20261130T031000Z-ffffff', T0, random)).toBe('20261130T031001Z-000000');
    // The clock went back an hour: still after the newest.
    expect(newRunIdAfter('20261130T041000Z-abc123', T0, random)).toBe('20261130T041001Z-000000');
  });
});
