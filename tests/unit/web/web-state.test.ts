// The web view's state document: built from the monitor's snapshot, with every string from a
// state file or the agent cleaned of terminal controls, the timeline read leniently from
// metrics.jsonl, and the budget's projection.

import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { DashboardSnapshot } from '../../../lib/monitor/snapshot.js';
import { buildWebState, createWebStateSource, loopsLeftInBudget, parseTimeline, TIMELINE_LOOPS } from '../../../lib/web/web-state.js';
import { projectView } from '../../helpers/project-view.js';
import { stateProject } from '../monitor/fixture-state.js';

function snapshot(extra: Partial<DashboardSnapshot> = {}): DashboardSnapshot {
  return {
    projectDir: '/projects/demo',
    takenAt: 1_000,
    ralphDirFound: true,
    rate: {},
    ralphLogTail: [],
    liveTail: [],
    warnings: [],
    ...extra,
  };
}

describe('parseTimeline', () => {
  it('keeps the lines ralph or the Bash tool wrote and skips the rest', () => {
    const text = [
      '{"timestamp":"2026-12-06T10:00:00Z","loop":1,"duration":12,"success":true,"calls":1,"cost_usd":0.25,"files_changed":3}',
      'not json',
      '[1,2]',
      '{"loop":"2","duration":"7","success":"false","calls":"1"}',
      '{"duration":5}',
      '',
      '{"loop":3,"duration":1,"success":true,"timestamp":"\u001b]0;PWNED\u0007x"}',
    ].join('\n');
    expect(parseTimeline(text)).toEqual([
      { loop: 1, at: '2026-12-06T10:00:00Z', durationSeconds: 12, success: true, costUsd: 0.25, filesChanged: 3 },
      { loop: 2, at: '', durationSeconds: 7, success: false },
      { loop: 3, at: ']0;PWNED x', durationSeconds: 1, success: true },
    ]);
  });

  it("gives each loop its own cost: the step of the run's running total, or loop_cost_usd", () => {
    const lines = [
      { loop: 1, cost_usd: 0.02 },
      { loop: 2, cost_usd: 0.05 },
      { loop: 3, cost_usd: 0.05, loop_cost_usd: 0.01 },
      // A new run: its total starts again.
      { loop: 1, cost_usd: 0.04, outcome: 'progress' },
    ].map((line) => JSON.stringify({ duration: 1, success: true, ...line }));
    expect(parseTimeline(lines.join('\n')).map((l) => [l.loop, l.costUsd, l.outcome])).toEqual([
      [1, 0.02, undefined],
      [2, 0.03, undefined],
      [3, 0.01, undefined],
      [1, 0.04, 'progress'],
    ]);
  });

  it('keeps the newest loops only', () => {
    const lines = Array.from({ length: TIMELINE_LOOPS + 5 }, (_, i) => JSON.stringify({ loop: i + 1, duration: 1, success: true }));
    const timeline = parseTimeline(lines.join('\n'));
    expect(timeline).toHaveLength(TIMELINE_LOOPS);
    expect(timeline[0]!.loop).toBe(6);
  });
});

describe('loopsLeftInBudget', () => {
  const loops = [
    { loop: 1, at: '', durationSeconds: 1, success: true, costUsd: 0.5 },
    { loop: 2, at: '', durationSeconds: 1, success: true, costUsd: 1.5 },
    { loop: 3, at: '', durationSeconds: 1, success: false },
  ];
  it('is what the rest of the budget pays for at the average cost per costed loop', () => {
    expect(loopsLeftInBudget(2, 10, loops)).toBe(8);
    expect(loopsLeftInBudget(11, 10, loops)).toBe(0);
  });
  it('is unknown without a budget or a cost seen', () => {
    expect(loopsLeftInBudget(2, 0, loops)).toBeUndefined();
    expect(loopsLeftInBudget(undefined, 10, loops)).toBeUndefined();
    expect(loopsLeftInBudget(0, 10, [{ loop: 1, at: '', durationSeconds: 1, success: true }])).toBeUndefined();
  });
});

describe('buildWebState', () => {
  it('passes markup through as text and removes terminal controls from everything shown', () => {
    const state = buildWebState(
      snapshot({
        liveTail: ['<script>alert(1)</script>', '\u001b]0;ralph: ALL TESTS PASSED\u0007\u001b[32m[SUCCESS]\u001b[0m done\r'],
        status: { loopCount: 4, status: 'running', lastAction: 'exec\u001b[2Juting', alerts: ['undid \u009b31m.ralphrc'] },
        warnings: ['bad \u0007 byte'],
      }),
      { plan: undefined, timeline: [], run: null },
    );
    expect(state.live).toEqual(['<script>alert(1)</script>', '[SUCCESS] done']);
    expect(state.loop).toMatchObject({ count: 4, status: 'running', lastAction: 'executing' });
    expect(state.alerts).toEqual(['undid 31m.ralphrc']);
    expect(state.warnings).toEqual(['bad  byte']);
    expect(JSON.stringify(state)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('shows the gate, the run, the units and the queue', () => {
    const state = buildWebState(
      snapshot({
        units: [{ slug: 'add-login', state: 'merged', loops: 3, costUsd: 0.4, worktree: 'w', reason: '' }],
        queue: { total: 3, completed: 1, pending: 1, processing: 1, failed: 0, current: 'issue-7' },
      }),
      {
        plan: undefined,
        timeline: [],
        run: {
          run_id: 'r1',
          status: 'active',
          created_at: '',
          updated_at: '',
          goal: { type: 'checklist', summary: '' },
          attempts: 3,
          resumes: 0,
          last_attempt: null,
          agents_by_loop: [],
          gap: null,
          gap_text: 'gap 2 (2 open items)',
          last_verification: { loop: 3, status: 'failed', passed: 8, failed: 1, skipped: 0, failing: ['test_login'] },
        },
      },
    );
    expect(state.gate).toEqual({ loop: 3, status: 'failed', passed: 8, failed: 1, skipped: 0, failing: ['test_login'] });
    expect(state.run).toEqual({ status: 'active', attempts: 3, gap: 'gap 2 (2 open items)' });
    expect(state.units).toEqual([{ slug: 'add-login', state: 'merged', loops: 3, costUsd: 0.4, reason: '' }]);
    expect(state.queue).toMatchObject({ total: 3, current: 'issue-7' });
  });

  it("gives a unit in review its pull request's URL for a link, an http(s) URL only", () => {
    const unit = { state: 'in-review', loops: 1, costUsd: 0.1, worktree: 'w', reason: 'pull request https://github.com/o/r/pull/3' };
    const state = buildWebState(
      snapshot({
        units: [
          { ...unit, slug: 'add-a', prUrl: 'https://github.com/o/r/pull/3' },
          { ...unit, slug: 'add-b', prUrl: 'javascript:alert(1)' },
        ],
      }),
      { plan: undefined, timeline: [], run: null },
    );
    expect(state.units.map((u) => u.prUrl)).toEqual(['https://github.com/o/r/pull/3', undefined]);
  });
});

describe('createWebStateSource', () => {
  it('reads past a FIFO the agent put in place of metrics.jsonl: the view goes on', async () => {
    const project = stateProject('completed');
    const fifo = join(project.dir, '.ralph/logs/metrics.jsonl');
    project.write('.ralph/logs/metrics.jsonl', '');
    rmSync(fifo);
    execFileSync('mkfifo', [fifo]);
    onTestFinished(() => {
      // Were a reader stuck on the FIFO, a writer that comes and goes would free it.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader waits
      }
      project.cleanup();
    });
    const source = createWebStateSource({ projectDir: project.dir, view: projectView(project.dir), now: () => Date.now() });
    const { state } = await source.load();
    expect(state.timeline).toEqual([]);
    expect(state.loop).toMatchObject({ count: 6, status: 'completed' });
  });
});
