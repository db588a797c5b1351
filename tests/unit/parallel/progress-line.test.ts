// The combined progress line of a parallel run on a terminal: redrawn in place, cleared
// before any other line and drawn again after it, cut to the terminal's width.

import { describe, expect, it } from 'vitest';
import { describeProgress, ProgressLine } from '../../../lib/parallel/progress-line.js';
import type { ParallelRunState, UnitRecord } from '../../../lib/parallel/run-state.js';

function terminal(columns = 80) {
  const writes: string[] = [];
  return { writes, output: { isTTY: true, columns, write: (text: string) => void writes.push(text) } };
}

const unit = (slug: string, state: UnitRecord['state'], loops: number, cost: number): UnitRecord => ({
  slug,
  item: slug,
  lines: [],
  after: [],
  branch: '',
  worktree: '',
  state,
  loops,
  cost_usd: cost,
  exit_code: null,
  exit_reason: '',
  conflict_passes: 0,
  merge_attempts: 0,
});

describe('ProgressLine', () => {
  it('clears itself before another line is written and draws itself again after', () => {
    const tty = terminal();
    const progress = new ProgressLine(tty.output);
    const log = progress.around(tty.output);
    progress.set('1/3 merged · $0.10');
    log.write('[INFO] Unit a merged\n');
    progress.set('2/3 merged · $0.20');
    progress.close();
    expect(tty.writes).toEqual([
      '1/3 merged · $0.10',
      '\r\x1b[2K',
      '[INFO] Unit a merged\n',
      '1/3 merged · $0.10',
      '\r\x1b[2K',
      '2/3 merged · $0.20',
      '\r\x1b[2K',
    ]);
  });

  it("fits the terminal's width and keeps no control character of a unit's name", () => {
    const tty = terminal(30);
    new ProgressLine(tty.output).set(`1/2 merged · a-very-long-unit-name-\x1b]0;x\x07 loop 2 · $0.00`);
    expect(tty.writes[0]).toHaveLength(29);
    expect(tty.writes[0]).not.toMatch(/\x1b|\x07/);
    expect(tty.writes[0]!.endsWith('…')).toBe(true);
  });
});

describe('describeProgress', () => {
  it('says how many units merged, what each unit at work does, and the cost', () => {
    const run = {
      run_id: 'p1',
      base_commit: 'a'.repeat(40),
      run_branch: 'main',
      started_at: '',
      finished: false,
      units: [
        unit('add-alpha', 'merged', 1, 0.25),
        unit('add-beta', 'running', 1, 0.1),
        unit('add-gamma', 'conflict', 2, 0),
        unit('add-delta', 'pending', 0, 0),
      ],
    } satisfies ParallelRunState;
    expect(describeProgress(run)).toBe('1/4 merged · add-beta loop 2 · add-gamma resolving a conflict · $0.35');
  });
});
