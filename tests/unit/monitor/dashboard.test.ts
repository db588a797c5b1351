import { afterEach, describe, expect, it } from 'vitest';
import { runDashboard, type DashboardTerminal } from '../../../lib/monitor/dashboard.js';
import { CLEAR_SCREEN, ENTER_SCREEN, LEAVE_SCREEN } from '../../../lib/monitor/frame-patch.js';
import type { SnapshotLoader } from '../../../lib/monitor/snapshot-loader.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { ourStatus, stateProject, type StateProject } from './fixture-state.js';
import { projectView } from '../../helpers/project-view.js';
import { useTimeZone } from '../../helpers/time-zone.js';

useTimeZone('UTC');

let project: StateProject | undefined;
afterEach(() => project?.cleanup());

interface FakeTerminal extends DashboardTerminal {
  writes: string[];
  resize(columns: number, rows: number): void;
}

function fakeTerminal(columns = 80, rows = 40): FakeTerminal {
  let size = { columns, rows };
  const listeners = new Set<() => void>();
  return {
    writes: [],
    write(text) {
      this.writes.push(text);
    },
    size: () => size,
    onResize(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    resize(c, r) {
      size = { columns: c, rows: r };
      for (const l of listeners) l();
    },
  };
}

/** Runs the dashboard, calling `step(frameNumber)` after each frame; the loop stops when it returns 'stop'. */
async function drive(terminal: FakeTerminal, projectDir: string, step: (frame: number) => 'stop' | void, loader?: SnapshotLoader) {
  const stop = new AbortController();
  const clock = fakeClock('2026-11-30T10:00:00Z');
  let frames = 0;
  await runDashboard({
    projectDir,
    view: projectView(projectDir),
    terminal,
    clock,
    intervalMs: 2000,
    color: false,
    signal: stop.signal,
    loader,
    onFrame: () => {
      if (step(++frames) === 'stop') stop.abort();
    },
  });
  return { frames, clock };
}

// Cursor-positioning writes (`ESC[row;1H`) in a patch: one per line rewritten.
const linesWritten = (patch: string) => (patch.match(/\x1b\[\d+;1H/g) ?? []).length;

describe('runDashboard', () => {
  it('enters the alternate screen, draws, and restores the terminal when stopped', async () => {
    project = stateProject('completed');
    const terminal = fakeTerminal();
    await drive(terminal, project.dir, () => 'stop');
    expect(terminal.writes[0]).toBe(ENTER_SCREEN);
    expect(terminal.writes[1]).toContain('Loop #6');
    expect(terminal.writes.at(-1)).toBe(LEAVE_SCREEN);
  });

  it('rewrites only what changed: the clock lines when idle, the loop line when status.json changes', async () => {
    project = stateProject();
    project.write('.ralph/status.json', ourStatus({ loop_count: 1 }));
    const terminal = fakeTerminal();
    const patches: string[] = [];
    const { clock } = await drive(terminal, project.dir, (frame) => {
      patches.push(terminal.writes.at(-1)!);
      if (frame === 2) project!.write('.ralph/status.json', ourStatus({ loop_count: 22 }));
      if (frame === 3) return 'stop';
    });
    // Frame 2: only what depends on the time moved on: the reset countdown and the footer clock.
    expect(linesWritten(patches[1]!)).toBe(2);
    expect(patches[1]).toContain('Resets in 59m 58s');
    expect(patches[1]).toContain('10:00:02');
    // Frame 3: the loop line as well.
    expect(patches[2]).toContain('Loop #22/20');
    expect(linesWritten(patches[2]!)).toBe(3);
    expect(patches.join('')).not.toContain(CLEAR_SCREEN);
    expect(clock.sleeps).toEqual([2000, 2000]);
  });

  it('redraws the whole frame at the new size after a resize, without waiting for the interval', async () => {
    project = stateProject('halted');
    const terminal = fakeTerminal(100, 40);
    await drive(terminal, project.dir, (frame) => {
      if (frame === 1) terminal.resize(60, 20);
      if (frame === 2) return 'stop';
    });
    const afterResize = terminal.writes.at(-2)!;
    expect(afterResize.startsWith(CLEAR_SCREEN)).toBe(true);
    expect(linesWritten(afterResize)).toBe(20);
    expect(afterResize).toContain('Loop #3');
  });

  it('restores the terminal even when loading fails', async () => {
    const terminal = fakeTerminal();
    const failing: SnapshotLoader = { load: () => Promise.reject(new Error('disk on fire')) };
    await expect(drive(terminal, '/nowhere', () => undefined, failing)).rejects.toThrow('disk on fire');
    expect(terminal.writes).toEqual([ENTER_SCREEN, LEAVE_SCREEN]);
  });
});
