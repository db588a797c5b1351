// The dashboard's Units section: one line per unit of a `ralph --parallel` run, from
// .ralph/parallel.json, each with its state, loops, cost and exit reason.

import { describe, expect, it } from 'vitest';
import { assembleSnapshot, type AssembleOptions } from '../../../lib/monitor/assemble-snapshot.js';
import { renderLoopSection, renderUnitsSection } from '../../../lib/monitor/render-sections.js';
import { defaultViewSettings } from '../../helpers/project-view.js';

const base: AssembleOptions = { projectDir: '/p/demo', now: Date.parse('2026-12-02T05:00:00Z'), ralphDirFound: true, ...defaultViewSettings() };

const unit = (slug: string, state: string, extra: Record<string, unknown> = {}) => ({
  slug,
  item: slug,
  lines: [`- [ ] ${slug}`],
  after: [],
  branch: `ralph/p1/${slug}`,
  worktree: `.ralph/worktrees/${slug}`,
  state,
  loops: 2,
  cost_usd: 0.5,
  exit_code: null,
  exit_reason: '',
  conflict_passes: 0,
  ...extra,
});

describe('dashboard Units section', () => {
  it('shows every unit with its state, loops, cost and reason', () => {
    const parallel = {
      run_id: 'p1',
      base_commit: 'a'.repeat(40),
      run_branch: 'main',
      started_at: '2026-12-02T04:00:00Z',
      finished: false,
      units: [
        unit('add-alpha', 'merged', { exit_reason: 'merged (fast-forward)' }),
        unit('add-beta', 'running', { loops: 5, cost_usd: 1.25 }),
        unit('add-gamma', 'needs-review', { exit_reason: 'merge conflict in a.txt' }),
      ],
    };
    const snap = assembleSnapshot({ parallel: JSON.stringify(parallel) }, base);
    const lines = renderUnitsSection(snap).map((line) => line.map((seg) => seg.text).join(''));
    expect(lines).toEqual([
      'add-alpha  merged       loops 2 · $0.50 · merged (fast-forward)',
      'add-beta   running      loops 5 · $1.25',
      'add-gamma  needs-review loops 2 · $0.50 · merge conflict in a.txt',
    ]);
  });

  it("says in the Loop section that the units run their own loops, where a single loop's status would be", () => {
    const parallel = {
      run_id: 'p1',
      base_commit: 'a'.repeat(40),
      run_branch: 'main',
      started_at: '2026-12-02T04:00:00Z',
      finished: false,
      units: [unit('add-alpha', 'running'), unit('add-beta', 'pending')],
    };
    const snap = assembleSnapshot({ parallel: JSON.stringify(parallel) }, base);
    const text = renderLoopSection(snap, { now: base.now, columns: 80 }).map((line) => line.map((seg) => seg.text).join(''));
    expect(text).toEqual(['Parallel run: 2 unit(s), each with its own loop (see Units)']);
  });

  it('shows nothing without a parallel run', () => {
    expect(renderUnitsSection(assembleSnapshot({}, base))).toEqual([]);
  });
});
