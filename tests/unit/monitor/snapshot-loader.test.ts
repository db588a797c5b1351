import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSnapshotLoader, loadSnapshot, MAX_SESSION_ENTRIES } from '../../../lib/monitor/snapshot-loader.js';
import { saveRunRecord } from '../../../lib/run-record/record-store.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { newRecord } from '../run-record/record-fixture.js';
import { stateProject, type StateProject } from './fixture-state.js';
import { projectView } from '../../helpers/project-view.js';
import { useTimeZone } from '../../helpers/time-zone.js';

useTimeZone('UTC');

let project: StateProject | undefined;
afterEach(() => project?.cleanup());

describe('loadSnapshot on state written by the Bash tool', () => {
  it('reads the mid-run fixture: loop, status, calls, salvaged progress, analysis, plan', async () => {
    project = stateProject('midrun');
    const snap = await loadSnapshot(project.dir, projectView(project.dir), Date.parse('2026-11-30T04:49:10Z'));
    expect(snap.status).toMatchObject({ loopCount: 3, status: 'running', maxCallsPerHour: 100 });
    expect(snap.rate.calls).toBe(3);
    expect(snap.progress).toMatchObject({ status: 'executing', indicator: '⠋' });
    expect(snap.analysis).toMatchObject({ loopNumber: 2, filesModified: 2 });
    expect(snap.plan).toEqual({ done: 2, total: 4, optionalOpen: 0, optionalDone: 0 });
    expect(snap.ralphLogTail.at(-1)).toContain('Using modern CLI mode');
    expect(snap.warnings).toEqual([]);
  });

  it('reads the halted fixture: breaker OPEN with its reason', async () => {
    project = stateProject('halted');
    const snap = await loadSnapshot(project.dir, projectView(project.dir), Date.now());
    expect(snap.status).toMatchObject({ status: 'halted', exitReason: 'stagnation_detected' });
    expect(snap.breaker).toMatchObject({ state: 'OPEN', consecutiveNoProgress: 3, totalOpens: 1 });
  });

  it('never modifies the state it reads, even when a file is corrupt', async () => {
    project = stateProject('completed');
    project.write('.ralph/status.json', '{ not json');
    const ralphDir = join(project.dir, '.ralph');
    const before = readdirSync(ralphDir).sort();
    const snap = await loadSnapshot(project.dir, projectView(project.dir), Date.now());
    expect(snap.warnings).toContain('status.json is corrupt (not a JSON object); ignored');
    expect(readdirSync(ralphDir).sort()).toEqual(before);
    expect(readFileSync(join(ralphDir, 'status.json'), 'utf8')).toBe('{ not json');
  });

  it('reads past a FIFO the agent put in place of a state file or a log, with a warning', async () => {
    project = stateProject('midrun');
    const fifos = ['status.json', 'live.log'].map((name) => join(project!.dir, '.ralph', name));
    for (const fifo of fifos) rmSync(fifo);
    execFileSync('mkfifo', fifos);
    // Opened without blocking: no writer ever comes, and the frame is still drawn.
    const snap = await loadSnapshot(project.dir, projectView(project.dir), Date.parse('2026-11-30T04:49:10Z'));
    expect(snap.warnings).toEqual(['cannot read status.json (not a regular file)', 'cannot read live.log (not a regular file)']);
    expect(snap.status).toBeUndefined();
    expect(snap.plan).toEqual({ done: 2, total: 4, optionalOpen: 0, optionalDone: 0 });
  });

  it('reads no state file, plan or log through a link out of the project, as the loop reads none', async () => {
    project = stateProject('midrun');
    const outside = mkdtempSync(join(tmpdir(), 'ralph-mon-outside-'));
    try {
      writeFileSync(join(outside, 'secret'), 'SECRET line of a file outside the project\n');
      writeFileSync(join(outside, 'plan.md'), '# Fix Plan\n- [x] a\n- [x] b\n');
      writeFileSync(join(outside, 'status.json'), JSON.stringify({ status: 'running', loop_count: 99 }));
      const link = (name: string, target: string) => {
        rmSync(join(project!.dir, '.ralph', name), { force: true });
        symlinkSync(join(outside, target), join(project!.dir, '.ralph', name));
      };
      link('logs/ralph.log', 'secret');
      link('fix_plan.md', 'plan.md');
      link('status.json', 'status.json');
      const snap = await loadSnapshot(project.dir, projectView(project.dir), Date.parse('2026-11-30T04:49:10Z'));
      expect(snap.ralphLogTail.join('\n')).not.toContain('SECRET');
      expect(snap.plan).toBeUndefined();
      expect(snap.status).toBeUndefined();
      expect(snap.warnings).toEqual(
        expect.arrayContaining([
          'cannot read status.json (a link out of the project)',
          'cannot read fix_plan.md (a link out of the project)',
          'cannot read ralph.log (a link out of the project)',
        ]),
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reports a project without .ralph/', async () => {
    project = stateProject();
    const snap = await loadSnapshot(join(project.dir, 'elsewhere'), projectView(join(project.dir, 'elsewhere')), Date.now());
    expect(snap.ralphDirFound).toBe(false);
  });

  it('turns an unreadable file into a warning', async () => {
    if (process.getuid?.() === 0) {
      // root reads anything; use a directory where a file is expected instead.
      project = stateProject();
      project.write('.ralph/status.json/inner', 'x');
      const snap = await loadSnapshot(project.dir, projectView(project.dir), Date.now());
      expect(snap.warnings.some((w) => w.startsWith('cannot read status.json'))).toBe(true);
      return;
    }
    project = stateProject('completed');
    chmodSync(join(project.dir, '.ralph/status.json'), 0o000);
    const snap = await loadSnapshot(project.dir, projectView(project.dir), Date.now());
    expect(snap.warnings.some((w) => w.startsWith('cannot read status.json'))).toBe(true);
  });
});

describe('createSnapshotLoader', () => {
  it('reads only the last KB of a big log, starting at a whole line', async () => {
    project = stateProject();
    const lines = Array.from({ length: 5000 }, (_, i) => `[2026-11-30 10:00:00] [INFO] line ${i}`);
    project.write('.ralph/logs/ralph.log', `${lines.join('\n')}\n`);
    const snap = await loadSnapshot(project.dir, projectView(project.dir), Date.now());
    expect(snap.ralphLogTail.at(-1)).toBe('[2026-11-30 10:00:00] [INFO] line 4999');
    expect(snap.ralphLogTail.length).toBeLessThan(300);
    expect(snap.ralphLogTail[0]).toMatch(/^\[2026-11-30 10:00:00\] \[INFO\] line \d+$/);
  });

  it('reports a change only when a file changed, appeared or went away', async () => {
    project = stateProject('midrun');
    const loader = createSnapshotLoader({ projectDir: project.dir, now: () => Date.now(), view: projectView(project.dir) });
    expect((await loader.load()).changed).toBe(true);
    expect((await loader.load()).changed).toBe(false);
    const status = join(project.dir, '.ralph/status.json');
    const text = readFileSync(status, 'utf8').replace('"loop_count": 3', '"loop_count": 44');
    writeFileSync(status, text);
    const next = await loader.load();
    expect(next.changed).toBe(true);
    expect(next.snapshot.status?.loopCount).toBe(44);
    expect((await loader.load()).changed).toBe(false);
    project.write('.ralph/.usage_limit_wait', JSON.stringify({ resume_at: '2099-01-01T00:00:00Z' }));
    expect((await loader.load()).changed).toBe(true);
  });

  it('sees a file rewritten in place with its size and modification time kept', async () => {
    project = stateProject('midrun');
    const loader = createSnapshotLoader({ projectDir: project.dir, now: () => Date.now(), view: projectView(project.dir) });
    expect((await loader.load()).snapshot.plan).toEqual({ done: 2, total: 4, optionalOpen: 0, optionalDone: 0 });
    const plan = join(project.dir, '.ralph/fix_plan.md');
    const times = join(project.dir, 'times');
    execFileSync('touch', ['-r', plan, times]);
    // The same inode and size, every box ticked; then its old modification time put back.
    writeFileSync(plan, readFileSync(plan, 'utf8').replaceAll('- [ ]', '- [x]'), { flag: 'r+' });
    execFileSync('touch', ['-r', times, plan]);
    const next = await loader.load();
    expect(next.changed).toBe(true);
    expect(next.snapshot.plan).toEqual({ done: 4, total: 4, optionalOpen: 0, optionalDone: 0 });
  });

  it('leaves unread a run record too large to be one ralph wrote, as the loop reads none mid-run', async () => {
    project = stateProject('midrun');
    const paths = ralphPaths(project.dir);
    saveRunRecord(paths, newRecord('20261130T041000Z-bbbbbb'));
    const real = readFileSync(join(paths.sessionsDir, '20261130T041000Z-bbbbbb.json'), 'utf8');
    // The agent's, named to sort as the newest: valid, and bigger than any state file.
    const planted = { ...JSON.parse(real), run_id: 'planted', padding: 'x'.repeat(5 * 1024 * 1024) };
    writeFileSync(join(paths.sessionsDir, 'zzzz.json'), JSON.stringify(planted));
    const loader = createSnapshotLoader({ projectDir: project.dir, now: () => Date.now(), view: projectView(project.dir) });
    expect((await loader.load()).runSummary?.run_id).toBe('20261130T041000Z-bbbbbb');
  });

  it('lists no run record in a sessions folder the agent filled with files, and says so', async () => {
    project = stateProject('midrun');
    const paths = ralphPaths(project.dir);
    saveRunRecord(paths, newRecord('20261130T041000Z-bbbbbb'));
    const loader = createSnapshotLoader({ projectDir: project.dir, now: () => Date.now(), view: projectView(project.dir) });
    expect((await loader.load()).runSummary?.run_id).toBe('20261130T041000Z-bbbbbb');
    // Listing (and sorting) that many names on each look would keep the loop's process busy.
    for (let i = 0; i < MAX_SESSION_ENTRIES; i++) writeFileSync(join(paths.sessionsDir, `a${i}.json`), 'x');
    const next = await loader.load();
    expect(next.runSummary).toBeNull();
    expect(next.snapshot.warnings).toContain(`.ralph/sessions/ holds more than ${MAX_SESSION_ENTRIES} files: the run record is not shown`);
  });
});
