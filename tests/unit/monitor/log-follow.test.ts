// `ralph-monitor --live` (lib/monitor/log-follow.ts) on real files: the project's live.log as it
// grows, from the start again when a loop starts a fresh one, a note while there is none, and
// every escape sequence and control character the agent appended to it removed.

import { appendFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
    expect(poll()).toBe('=== Loop #1 ===\nworking');
    appendFileSync(liveLog, ' still\n');
    expect(poll()).toBe(' still\n');
    writeFileSync(liveLog, '=== Loop #2 ===\n');
    expect(poll()).toBe('=== Loop #2 ===\n');
  });

  it('removes what the agent appended to set the title, colour, clear or overwrite lines', () => {
    const { liveLog, poll } = follower();
    writeFileSync(liveLog, 'ralph line\n');
    poll();
    appendFileSync(liveLog, '\x1b]0;ralph: ALL TESTS PASSED\x07\x1b[1A\x1b[2K\r\x1b[32m[SUCCESS] fake\x1b[0m\n\x1b[2J\x1b[Hnext\x9b2J\n');
    expect(poll()).toBe('[SUCCESS] fake\nnext2J\n');
    // A sequence cut by a read is held until its end arrives, then removed whole.
    appendFileSync(liveLog, 'cut \x1b]0;PWNED');
    expect(poll()).toBe('cut ');
    appendFileSync(liveLog, '-TITLE\x07 done\n');
    expect(poll()).toBe(' done\n');
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
    expect(shown).toBe('hello\n');
  });
});
