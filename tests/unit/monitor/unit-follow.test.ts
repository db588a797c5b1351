// `ralph-monitor --unit N` (lib/monitor/unit-follow.ts) on real files: the Nth unit of
// .ralph/parallel.json, found again on every poll; a placeholder until its worktree's live.log
// exists; its text as it grows, from the start again when a loop starts a fresh file; escape
// sequences removed, also when a read cuts one in two; a note once the unit merged and its
// worktree went.

import { appendFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followUnit, UnitFollower } from '../../../lib/monitor/unit-follow.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { stateProject, type StateProject } from './fixture-state.js';

let project: StateProject | undefined;
afterEach(() => project?.cleanup());

const unit = (slug: string, state: string) => ({
  slug,
  item: slug,
  lines: [`- [ ] ${slug}`],
  after: [],
  branch: `ralph/p1/${slug}`,
  worktree: `.ralph/worktrees/p1-${slug}`,
  state,
  loops: 0,
  cost_usd: 0,
  exit_code: null,
  exit_reason: '',
  conflict_passes: 0,
});

function writeRun(p: StateProject, units: Array<ReturnType<typeof unit>>, finished = false): void {
  p.write(
    '.ralph/parallel.json',
    JSON.stringify({ run_id: 'p1', base_commit: 'a'.repeat(40), run_branch: 'main', started_at: '2026-12-02T04:00:00Z', finished, units }),
  );
}

function follower(position: number) {
  project = stateProject();
  let shown = '';
  const f = new UnitFollower({ projectDir: project.dir, position, clock: fakeClock(), write: (text) => (shown += text) });
  return {
    p: project,
    /** Polls once and returns what this poll wrote. */
    poll(): string {
      const before = shown.length;
      f.poll();
      return shown.slice(before);
    },
    liveLog: (slug: string) => join(project!.dir, '.ralph/worktrees', `p1-${slug}`, '.ralph/live.log'),
  };
}

describe('ralph-monitor --unit N', () => {
  it("waits for the run, then for the unit's worktree, then shows its live output as it grows", () => {
    const { p, poll, liveLog } = follower(2);
    expect(poll()).toBe('=== unit-2: waiting for unit 2 of a parallel run (.ralph/parallel.json) ===\n');
    expect(poll()).toBe('');
    writeRun(p, [unit('add-alpha', 'running'), unit('add-beta', 'pending')]);
    expect(poll()).toBe('--- unit-2 add-beta: pending ---\n=== unit-2 add-beta: waiting for its worktree (.ralph/worktrees/p1-add-beta) ===\n');
    writeRun(p, [unit('add-alpha', 'running'), unit('add-beta', 'running')]);
    p.write('.ralph/worktrees/p1-add-alpha/.ralph/live.log', 'ALPHA\n');
    p.write('.ralph/worktrees/p1-add-beta/.ralph/live.log', '=== Loop #1 ===\nbeta starts');
    expect(poll()).toBe('--- unit-2 add-beta: running ---\n│ === Loop #1 ===\n│ beta starts');
    appendFileSync(liveLog('add-beta'), ' and goes on\n');
    expect(poll()).toBe(' and goes on\n');
    // The next loop starts a fresh (shorter) file: shown from its start.
    writeFileSync(liveLog('add-beta'), '=== Loop #2 ===\n');
    expect(poll()).toBe('│ === Loop #2 ===\n');
    // A fresh loop's file that is already longer than what was read of the old one: from its start too.
    writeFileSync(liveLog('add-beta'), '=== Loop #3 ===\nthe third loop has a lot more to say at once\n');
    expect(poll()).toBe('│ === Loop #3 ===\n│ the third loop has a lot more to say at once\n');
    // Merged: the worktree is removed.
    writeRun(p, [unit('add-alpha', 'running'), unit('add-beta', 'merged')]);
    rmSync(join(p.dir, '.ralph/worktrees/p1-add-beta'), { recursive: true });
    expect(poll()).toBe('--- unit-2 add-beta: merged ---\n=== unit-2 add-beta: merged; its worktree was removed ===\n');
    expect(poll()).toBe('');
  });

  it('removes the escape sequences and control characters the agent wrote, also one cut by a read', () => {
    const { p, poll, liveLog } = follower(1);
    writeRun(p, [unit('add-alpha', 'running')]);
    p.write('.ralph/worktrees/p1-add-alpha/.ralph/live.log', 'title \x1b]0;PWNED\x07set, \x1b[31mred\x1b[0m, bell\x07, clipboard \x1b]52;c;');
    expect(poll()).toBe('--- unit-1 add-alpha: running ---\n│ title set, red, bell, clipboard ');
    appendFileSync(liveLog('add-alpha'), 'ZXZpbA==\x07 done\x1b[');
    expect(poll()).toBe(' done');
    appendFileSync(liveLog('add-alpha'), '2J\n');
    expect(poll()).toBe('\n');
  });

  it('holds back no more than a few KB after an escape: endless text without a newline is still shown, without the escape', () => {
    const { p, poll, liveLog } = follower(1);
    writeRun(p, [unit('add-alpha', 'running')]);
    p.write('.ralph/worktrees/p1-add-alpha/.ralph/live.log', 'start \x1b[');
    expect(poll()).toBe('--- unit-1 add-alpha: running ---\n│ start ');
    appendFileSync(liveLog('add-alpha'), 'x'.repeat(10_000));
    const shown = poll();
    expect(shown.length).toBeGreaterThan(9_000);
    expect(shown).not.toContain('\x1b');
  });

  it('shows the placeholder again for a finished run, and refuses a live.log that is a symlink', () => {
    const { p, poll } = follower(1);
    writeRun(p, [unit('add-alpha', 'merged')], true);
    expect(poll()).toBe('=== unit-1: waiting for unit 1 of a parallel run (.ralph/parallel.json) ===\n');
    writeRun(p, [unit('add-alpha', 'running')]);
    p.write('secret.txt', 'not the agent output\n');
    p.write('.ralph/worktrees/p1-add-alpha/.ralph/keep', '');
    symlinkSync(join(p.dir, 'secret.txt'), join(p.dir, '.ralph/worktrees/p1-add-alpha/.ralph/live.log'));
    const shown = poll();
    expect(shown).toContain('=== unit-1 add-alpha: cannot show its live.log:');
    expect(shown).not.toContain('not the agent output');
  });

  it('polls on the injected clock until stopped', async () => {
    project = stateProject();
    const clock = fakeClock();
    const stop = new AbortController();
    let polls = 0;
    let shown = '';
    await followUnit({
      projectDir: project.dir,
      position: 1,
      clock,
      intervalMs: 500,
      signal: stop.signal,
      write: (text) => (shown += text),
      onPoll: () => {
        if (++polls === 3) stop.abort();
      },
    });
    expect(clock.sleeps).toEqual([500, 500]);
    expect(shown).toBe('=== unit-1: waiting for unit 1 of a parallel run (.ralph/parallel.json) ===\n');
  });
});
