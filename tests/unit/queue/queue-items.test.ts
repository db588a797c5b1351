import { describe, expect, it } from 'vitest';
import {
  addItem,
  countByStatus,
  decideItemOutcome,
  markItem,
  matchesRef,
  prdItemId,
  resetInterrupted,
  type QueueEntry,
} from '../../../lib/queue/queue-items.js';

const entry = (n: number, status: QueueEntry['status'] = 'pending'): QueueEntry => ({
  id: `github-${n}`,
  issue_number: n,
  status,
  started_at: null,
  completed_at: null,
  error_message: '',
});

describe('queue items', () => {
  it('derives a PRD id from its project-relative path', () => {
    expect(prdItemId('docs/My Feature.md')).toBe('prd-docs-my-feature-md');
    expect(prdItemId('../feature-a.md')).toBe('prd-feature-a-md');
  });

  it('matches by issue number, #number or id', () => {
    expect(matchesRef(entry(12), '12')).toBe(true);
    expect(matchesRef(entry(12), '#12')).toBe(true);
    expect(matchesRef(entry(12), 'github-12')).toBe(true);
    expect(matchesRef(entry(12), '1')).toBe(false);
  });

  it('adds an item once', () => {
    const first = addItem([], entry(1));
    expect(first.added).toBe(true);
    const again = addItem(first.items, { ...entry(1), status: 'failed' });
    expect(again).toEqual({ items: [entry(1)], added: false });
  });

  it('stamps started_at once, completed_at at the end, and the reason of a failure', () => {
    const started = markItem(entry(1), 'processing', 'T1');
    expect(markItem(started, 'processing', 'T2').started_at).toBe('T1');
    const failed = markItem(started, 'failed', 'T3', 'halted');
    expect(failed).toMatchObject({ status: 'failed', started_at: 'T1', completed_at: 'T3', error_message: 'halted' });
    expect(markItem(failed, 'completed', 'T4')).toMatchObject({ status: 'completed', completed_at: 'T4', error_message: '' });
  });

  it('puts items an interrupted run left processing back to pending', () => {
    const { items, reset } = resetInterrupted([{ ...entry(1, 'processing'), started_at: 'T1' }, entry(2, 'completed')]);
    expect(reset).toBe(1);
    expect(items.map((i) => [i.status, i.started_at])).toEqual([
      ['pending', null],
      ['completed', null],
    ]);
  });

  it('counts items by status', () => {
    expect(countByStatus([entry(1), entry(2, 'failed'), entry(3, 'failed'), entry(4, 'skipped')])).toEqual({
      total: 4,
      pending: 1,
      processing: 0,
      completed: 0,
      failed: 2,
      skipped: 1,
    });
  });
});

describe('decideItemOutcome', () => {
  it.each([
    [0, 'plan_complete', { kind: 'completed' }],
    [2, 'stagnation_detected', { kind: 'failed', reason: 'halted by a guard (exit 2): stagnation_detected' }],
    [3, 'max_loops_reached', { kind: 'failed', reason: 'stopped at a limit (exit 3): max_loops_reached' }],
    // The exit code in the words of the run summary (errors.ts describeExitCode): "could not run", no longer "the loop could not run".
    [1, '', { kind: 'failed', reason: 'could not run (exit 1)' }],
    [4, '', { kind: 'failed', reason: 'ended unexpectedly (exit 4)' }],
    [130, 'interrupted', { kind: 'interrupted', exitCode: 130 }],
  ])('exit %i (%s)', (code, reason, expected) => {
    expect(decideItemOutcome(code, reason)).toEqual(expected);
  });
});
