// What one look of the web view costs: the files it opens and the bytes it reads, counted through
// node:fs (patched for the look, and put back). A look does the work of what changed since the
// last one: metrics.jsonl is read from where the last look ended, a file the page does not show
// is not looked at (nor the run's attempts log), the plan is parsed again only when it or the
// plan's memory changed, and a look that finds nothing changed builds no path.

import fs, { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { syncBuiltinESMExports } from 'node:module';
import path, { basename, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { finishAttempt, startAttempt } from '../../../lib/run-record/attempts.js';
import { saveRunRecord } from '../../../lib/run-record/record-store.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { saveLedgerPlan } from '../../../lib/state/plan-memory-file.js';
import { createWebStateSource, parseTimeline, TIMELINE_LOOPS } from '../../../lib/web/web-state.js';
import { TIMELINE_TAIL_BYTES } from '../../../lib/web/web-timeline.js';
import { projectView } from '../../helpers/project-view.js';
import { newRecord, T0 } from '../run-record/record-fixture.js';
import { ourStatus, stateProject } from '../monitor/fixture-state.js';

interface FsCount {
  /** The paths opened, in order. */
  opened: string[];
  /** Bytes read from the files whose path ends with `suffix`. */
  bytesRead(suffix: string): number;
  /** Real paths worked out (realpathSync). */
  realPaths: number;
}

/** What `body` opens and reads through node:fs. */
async function counted(body: () => Promise<unknown>): Promise<FsCount> {
  const opened: string[] = [];
  const pathOf = new Map<number, string>();
  const bytes = new Map<string, number>();
  let realPaths = 0;
  const { openSync, readSync, realpathSync } = fs;
  fs.realpathSync = ((...args: unknown[]) => (realPaths++, (realpathSync as (...a: unknown[]) => string)(...args))) as unknown as typeof fs.realpathSync;
  fs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (openSync as (...args: unknown[]) => number)(path, ...rest);
    opened.push(String(path));
    pathOf.set(fd, String(path));
    return fd;
  }) as typeof fs.openSync;
  fs.readSync = ((fd: number, ...rest: unknown[]) => {
    const n = (readSync as (...args: unknown[]) => number)(fd, ...rest);
    const path = pathOf.get(fd) ?? '';
    bytes.set(path, (bytes.get(path) ?? 0) + n);
    return n;
  }) as typeof fs.readSync;
  syncBuiltinESMExports();
  try {
    await body();
  } finally {
    fs.openSync = openSync;
    fs.readSync = readSync;
    fs.realpathSync = realpathSync;
    syncBuiltinESMExports();
  }
  return { opened, realPaths, bytesRead: (suffix) => [...bytes].filter(([path]) => path.endsWith(suffix)).reduce((sum, [, n]) => sum + n, 0) };
}

/** A metrics.jsonl line of ours for `loop`, the run's running cost at `loop` × 0.1. */
function metricsLine(loop: number): string {
  const entry = {
    timestamp: `2026-12-06T10:${String(loop % 60).padStart(2, '0')}:00Z`,
    loop,
    duration: 12,
    success: true,
    calls: 1,
    cost_usd: loop / 10,
    files_changed: 1,
  };
  return `${JSON.stringify({ ...entry, outcome: 'progress', note: 'x'.repeat(200) })}\n`;
}

function project() {
  const p = stateProject('completed');
  onTestFinished(() => p.cleanup());
  const view = projectView(p.dir);
  const source = () => createWebStateSource({ projectDir: p.dir, view, now: () => 1_000 });
  return { ...p, view, source, metrics: join(p.dir, '.ralph/logs/metrics.jsonl') };
}

describe('the web view reads metrics.jsonl from where its last look ended', () => {
  it('reads the line appended, not the file again, and shows what a whole reading shows', async () => {
    const p = project();
    p.write('.ralph/logs/metrics.jsonl', Array.from({ length: 300 }, (_, i) => metricsLine(i + 1)).join(''));
    const source = p.source();
    await source.load();
    appendFileSync(p.metrics, metricsLine(301));
    let timeline: unknown;
    const count = await counted(async () => (timeline = (await source.load()).state.timeline));
    // The line (about 340 bytes) and the kilobyte before it, compared with what was read before.
    expect(count.bytesRead('metrics.jsonl')).toBeLessThan(metricsLine(301).length + 1024 + 1);
    expect(timeline).toEqual((await p.source().load()).state.timeline);
    expect(timeline).toHaveLength(TIMELINE_LOOPS);
    expect((timeline as Array<{ loop: number; costUsd: number }>).at(-1)).toMatchObject({ loop: 301, costUsd: 0.1 });
  });

  it('shows a line once it is whole, and reads it once', async () => {
    const p = project();
    p.write('.ralph/logs/metrics.jsonl', metricsLine(1));
    const source = p.source();
    await source.load();
    const line = metricsLine(2);
    appendFileSync(p.metrics, line.slice(0, 40));
    expect((await source.load()).state.timeline.map((l) => l.loop)).toEqual([1]);
    appendFileSync(p.metrics, line.slice(40));
    expect((await source.load()).state.timeline.map((l) => l.loop)).toEqual([1, 2]);
    appendFileSync(p.metrics, metricsLine(3));
    expect((await source.load()).state.timeline.map((l) => l.loop)).toEqual([1, 2, 3]);
  });

  it('reads no more than a first look would of a file that grew by more than that since the last look', async () => {
    const p = project();
    p.write('.ralph/logs/metrics.jsonl', metricsLine(1));
    const source = p.source();
    await source.load();
    // Megabytes appended between two looks: what a first look reads is enough to show the newest loops.
    appendFileSync(p.metrics, Array.from({ length: 4000 }, (_, i) => metricsLine(i + 2)).join(''));
    let timeline: unknown;
    const grown = await counted(async () => (timeline = (await source.load()).state.timeline));
    expect(grown.bytesRead('metrics.jsonl')).toBeLessThanOrEqual(TIMELINE_TAIL_BYTES);
    expect(timeline).toEqual((await p.source().load()).state.timeline);
    // A last line that never ends, growing look after look: each look reads a bounded part of it.
    const huge = 'x'.repeat(4 * TIMELINE_TAIL_BYTES);
    for (let i = 0; i < 3; i++) {
      appendFileSync(p.metrics, huge);
      const look = await counted(async () => (timeline = (await source.load()).state.timeline));
      expect(look.bytesRead('metrics.jsonl')).toBeLessThanOrEqual(TIMELINE_TAIL_BYTES);
      expect(timeline).toEqual((await p.source().load()).state.timeline);
    }
  });

  it.each([
    ['rewritten in place', (path: string, text: string) => writeFileSync(path, text)],
    ['replaced', (path: string, text: string) => (writeFileSync(`${path}.next`, text), renameSync(`${path}.next`, path))],
  ])('reads the file again when it was %s, not appended to', async (_how, rewrite) => {
    const p = project();
    const lines = Array.from({ length: 20 }, (_, i) => metricsLine(i + 1));
    p.write('.ralph/logs/metrics.jsonl', lines.join(''));
    const source = p.source();
    await source.load();
    // Longer than before, the same line at the end: only what was before it differs.
    const text = [metricsLine(100), ...lines.slice(1), metricsLine(21)].join('');
    rewrite(p.metrics, text);
    expect((await source.load()).state.timeline).toEqual(parseTimeline(text));
    rewrite(p.metrics, metricsLine(7));
    expect((await source.load()).state.timeline.map((l) => l.loop)).toEqual([7]);
  });
});

describe('a look of the web view', () => {
  it('does not look at or read the files the page does not show', async () => {
    const p = project();
    const source = p.source();
    await source.load();
    p.write('.ralph/logs/ralph.log', '[2026-12-06 10:00:00] [INFO] one more line\n');
    p.write('.ralph/.response_analysis', '{"analysis":{"exit_signal":false}}');
    p.write('.ralph/.run_state', '{"run_id":"20261206T100000Z-aaaaaa"}');
    let changed: boolean | undefined;
    const count = await counted(async () => (changed = (await source.load()).changed));
    expect(changed).toBe(false);
    expect(count.opened).toEqual([]);
  });

  it("parses the plan and reads the plan's memory again only when one of them changed", async () => {
    const p = project();
    p.write('.ralph/fix_plan.md', '# Plan\n- [x] Add the parser\n- [ ] Write the docs\n');
    saveLedgerPlan(p.view.paths.ledger!, p.dir, [{ text: 'Add the parser', position: 0 }]);
    const source = p.source();
    const first = (await source.load()).state;
    expect(first.plan?.heldOpen).toEqual([{ text: 'Add the parser', how: 'ticked without measured change' }]);
    p.write('.ralph/status.json', ourStatus({ loop_count: 8 }));
    let state = first;
    const count = await counted(async () => (state = (await source.load()).state));
    expect(state.loop.count).toBe(8);
    expect(count.opened.filter((path) => /fix_plan\.md|plan-memory/.test(path))).toEqual([]);
    expect(state.plan?.items).toBe(first.plan?.items);
    // The memory changed (the item counted done): the plan is checked against it again.
    saveLedgerPlan(p.view.paths.ledger!, p.dir, []);
    expect((await source.load()).state.plan?.heldOpen).toEqual([]);
  });

  it("reads the run record's summary, not its attempts log (the page shows no agent per loop)", async () => {
    const p = project();
    const paths = ralphPaths(p.dir);
    mkdirSync(paths.sessionsDir, { recursive: true });
    let record = newRecord('20261130T041000Z-bbbbbb');
    for (const loop of [1, 2, 3]) {
      record = startAttempt(record, loop, T0 + loop * 60_000);
      record = finishAttempt(record, { loop, now: T0 + loop * 60_000 + 1000, outcome: 'stuck', agentResult: 'ok', filesChanged: [] });
      saveRunRecord(paths, record);
    }
    let state: Awaited<ReturnType<ReturnType<typeof p.source>['load']>>['state'] | undefined;
    const count = await counted(async () => (state = (await p.source().load()).state));
    expect(state?.run).toMatchObject({ attempts: 3 });
    expect(count.opened.filter((path) => path.endsWith('.attempts.jsonl'))).toEqual([]);
  });

  it("checks each file it opens with one readlink, the project's real path worked out once, and refuses a link out of it", async () => {
    const p = project();
    p.write('.ralph/logs/metrics.jsonl', metricsLine(1));
    const source = p.source();
    await source.load();
    p.write('.ralph/status.json', ourStatus({ loop_count: 8 }));
    appendFileSync(p.metrics, metricsLine(2));
    let state = (await source.load()).state;
    const count = await counted(async () => {
      p.write('.ralph/status.json', ourStatus({ loop_count: 9 }));
      appendFileSync(p.metrics, metricsLine(3));
      state = (await source.load()).state;
    });
    expect(state.loop.count).toBe(9);
    expect(state.timeline.map((l) => l.loop)).toEqual([1, 2, 3]);
    expect(count.opened.filter((path) => /status\.json|metrics\.jsonl/.test(path))).toHaveLength(2);
    expect(count.realPaths).toBe(0);
    const outside = mkdtempSync(join(tmpdir(), 'ralph-web-outside-'));
    onTestFinished(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, 'status.json'), ourStatus({ loop_count: 99 }));
    writeFileSync(join(outside, 'metrics.jsonl'), metricsLine(99));
    for (const name of ['status.json', 'logs/metrics.jsonl']) {
      rmSync(join(p.dir, '.ralph', name));
      symlinkSync(join(outside, basename(name)), join(p.dir, '.ralph', name));
    }
    state = (await source.load()).state;
    expect(state.loop.count).toBeUndefined();
    expect(state.timeline).toEqual([]);
    expect(state.warnings).toContain('cannot read status.json (a link out of the project)');
  });

  it("builds none of `.ralph/`'s paths again when nothing changed", async () => {
    const p = project();
    const source = p.source();
    await source.load();
    let joins = 0;
    const { join: realJoin } = path;
    path.join = ((...parts: string[]) => (joins++, realJoin(...parts))) as typeof path.join;
    syncBuiltinESMExports();
    try {
      expect((await source.load()).changed).toBe(false);
    } finally {
      path.join = realJoin;
      syncBuiltinESMExports();
    }
    // At most the newest run record's path (all of `.ralph/`'s paths: more than 30).
    expect(joins).toBeLessThanOrEqual(1);
  });

  it('reads the plan and the run record once a change, as the snapshot reads them', async () => {
    const p = project();
    const paths = ralphPaths(p.dir);
    mkdirSync(paths.sessionsDir, { recursive: true });
    saveRunRecord(paths, newRecord('20261130T041000Z-bbbbbb'));
    p.write('.ralph/fix_plan.md', '# Fix Plan\n\n- [ ] one\n- [x] two\n');
    const source = p.source();
    let state: Awaited<ReturnType<typeof source.load>>['state'] | undefined;
    const { opened } = await counted(async () => (state = (await source.load()).state));
    expect(opened.filter((path) => path.endsWith('fix_plan.md'))).toHaveLength(1);
    expect(opened.filter((path) => path.endsWith('20261130T041000Z-bbbbbb.json'))).toHaveLength(1);
    expect(state?.run).toMatchObject({ attempts: 0 });
    expect(state?.plan?.items.map((item) => item.text)).toEqual(['one', 'two']);
  });
});
