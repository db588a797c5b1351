// `ralph-monitor --live` (lib/monitor/log-follow.ts) on real files: the project's live.log as it
// grows, from the start again when a loop starts a fresh one, a note while there is none, and
// every escape sequence and control character the agent appended to it removed, each of its lines
// behind the gutter that marks the agent's text.

import { appendFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { visibleWidth } from '../../../lib/monitor/ansi.js';
import { followLiveLog, LiveLogFollower } from '../../../lib/monitor/log-follow.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { stateProject, type StateProject } from './fixture-state.js';

let project: StateProject | undefined;
afterEach(() => project?.cleanup());

function follower() {
  project = stateProject();
  let shown = '';
  const f = new LiveLogFollower({ projectDir: project.dir, write: (text) => (shown += text) });
  const liveLog = join(project.dir, '.ralph/live.log');
  return {
    liveLog,
    poll(): string {
      const before = shown.length;
      f.poll();
      return shown.slice(before);
    },
  };
}

describe('ralph-monitor --live', () => {
  it("waits for the first loop, then shows live.log as it grows and each fresh loop's from its start", () => {
    const { liveLog, poll } = follower();
    rmSync(liveLog, { force: true });
    expect(poll()).toBe('=== Ralph Live Output - Waiting for first loop... ===\n');
    expect(poll()).toBe('');
    writeFileSync(liveLog, '=== Loop #1 ===\nworking');
    expect(poll()).toBe('│ === Loop #1 ===\n│ working');
    appendFileSync(liveLog, ' still\n');
    expect(poll()).toBe(' still\n');
    writeFileSync(liveLog, '=== Loop #2 ===\n');
    expect(poll()).toBe('│ === Loop #2 ===\n');
  });

  it('removes what the agent appended to set the title, colour, clear or overwrite lines', () => {
    const { liveLog, poll } = follower();
    writeFileSync(liveLog, 'ralph line\n');
    poll();
    appendFileSync(liveLog, '\x1b]0;ralph: ALL TESTS PASSED\x07\x1b[1A\x1b[2K\r\x1b[32m[SUCCESS] fake\x1b[0m\n\x1b[2J\x1b[Hnext\x9b2J\n');
    expect(poll()).toBe('│ [SUCCESS] fake\n│ next2J\n');
    // A sequence cut by a read is held until its end arrives, then removed whole.
    appendFileSync(liveLog, 'cut \x1b]0;PWNED');
    expect(poll()).toBe('│ cut ');
    appendFileSync(liveLog, '-TITLE\x07 done\n');
    expect(poll()).toBe(' done\n');
  });

  it("marks every line of live.log with a gutter, so a line the agent wrote cannot pass for ralph's own", () => {
    const { liveLog, poll } = follower();
    rmSync(liveLog, { force: true });
    const note = poll();
    expect(note).toBe('=== Ralph Live Output - Waiting for first loop... ===\n');
    // The agent forges ralph's note and a success line, with and without a carriage return or an escape to hide the gutter.
    writeFileSync(
      liveLog,
      '=== Ralph Live Output - Waiting for first loop... ===\n\r[SUCCESS] All 42 tests passed - safe to merge\n\x1b[2D[SUCCESS] again\n\n',
    );
    const shown = poll();
    expect(shown).toBe('│ === Ralph Live Output - Waiting for first loop... ===\n│ [SUCCESS] All 42 tests passed - safe to merge\n│ [SUCCESS] again\n│\n');
    expect(shown.split('\n').filter((line) => line !== '' && !line.startsWith('│'))).toEqual([]);
  });

  it("wraps a line longer than the pane itself, so the rest of it starts with the gutter too (never at the pane's edge)", () => {
    project = stateProject();
    let shown = '';
    const f = new LiveLogFollower({ projectDir: project.dir, write: (text) => (shown += text), columns: () => 20 });
    // 18 columns fill a line after the gutter; what follows would start the next screen line bare.
    writeFileSync(join(project.dir, '.ralph/live.log'), `${'x'.repeat(18)}[SUCCESS] ok 🚀🚀\n`);
    f.poll();
    expect(shown).toBe(`│ ${'x'.repeat(18)}\n│ [SUCCESS] ok 🚀🚀\n`);
    for (const line of shown.split('\n').filter(Boolean)) expect(visibleWidth(line)).toBeLessThanOrEqual(20);
    // A character beyond ASCII counts as two columns (a terminal may draw ⚠️ or an ambiguous
    // letter wide): the line wraps before it rather than let the terminal wrap it bare.
    shown = '';
    appendFileSync(join(project.dir, '.ralph/live.log'), `${'y'.repeat(17)}界\n${'z'.repeat(17)}⚠️\n`);
    f.poll();
    expect(shown).toBe(`│ ${'y'.repeat(17)}\n│ 界\n│ ${'z'.repeat(17)}\n│ ⚠️\n`);
  });

  it('refuses a live.log that is a symlink, saying so once', () => {
    const { liveLog, poll } = follower();
    rmSync(liveLog, { force: true });
    project!.write('secret.txt', 'not the agent output\n');
    symlinkSync(join(project!.dir, 'secret.txt'), liveLog);
    const shown = poll();
    expect(shown).toMatch(/^=== cannot show \.ralph\/live\.log: .*is a symlink.* ===\n$/);
    expect(shown).not.toContain('not the agent output');
    expect(poll()).toBe('');
  });

  it('polls on the injected clock until stopped', async () => {
    project = stateProject();
    writeFileSync(join(project.dir, '.ralph/live.log'), 'hello\n');
    const stop = new AbortController();
    let shown = '';
    let polls = 0;
    await followLiveLog({
      projectDir: project.dir,
      clock: fakeClock(),
      intervalMs: 500,
      signal: stop.signal,
      write: (text) => (shown += text),
      onPoll: () => {
        if (++polls === 3) stop.abort();
      },
    });
    expect(polls).toBe(3);
    expect(shown).toBe('│ hello\n');
  });
});
