// A parallel run's id names its branches and worktrees: a run started in the same second as the
// last one (abandoned, or finished) gets an id of its own, never the last one's.
import { describe, expect, it } from 'vitest';
import { newParallelRunId } from '../../../lib/parallel/run-parallel.js';

const at = Date.parse('2026-12-07T07:39:56.250Z');

describe('newParallelRunId', () => {
  it('is the second the run starts', () => {
    expect(newParallelRunId(at, undefined)).toBe('p20261207T073956');
    expect(newParallelRunId(at, 'p20261207T073955')).toBe('p20261207T073956');
  });

  it('counts on from the last run of the same second', () => {
    expect(newParallelRunId(at, 'p20261207T073956')).toBe('p20261207T073956-2');
    expect(newParallelRunId(at, 'p20261207T073956-2')).toBe('p20261207T073956-3');
    expect(newParallelRunId(at, 'p20261207T073956-x')).toBe('p20261207T073956-2');
  });
});
