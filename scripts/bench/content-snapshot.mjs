// Budget rows (docs/performance.md): a loop on a 50,000-file repository. The whole loop beyond
// the agent (a child process runs the real loop, scripts/bench/large-tree-child.mjs: the
// sandbox's setuid clean-up after the call when ralph runs as root, the snapshots, the guards,
// the disarm step, progress, everything from the agent process's exit to the next spawn)
// against `git status --porcelain` on the same tree, timed in the same run at each spawn: wall
// and CPU (git's included), medians of the loops after the first; the same loop run by another
// user than root (`nobody`, through setpriv: no clean-up after the call, so the content
// snapshot compares the stats itself, through git); and the files the loops wrote in `.git`.
// Then the content snapshot alone (one file changed since, as a loop leaves it) against
// `git status --porcelain`, alternated, and the bytes the snapshots add to `.git` (a 3 MB file
// rewritten between them included).

import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, notMeasured, row } from './rows.mjs';

const LOOP_CHILD = fileURLToPath(new URL('./large-tree-child.mjs', import.meta.url));

const dist = (path) => new URL(`../../dist/${path}`, import.meta.url).href;
const FILES = 50_000;
const PER_DIR = 500;

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  // No background gc racing the clean-up.
  GIT_CONFIG_PARAMETERS: "'gc.auto=0'",
};

function makeRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-snapshot-'));
  for (let i = 0; i < FILES; i++) {
    const sub = join(dir, `src${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(sub);
    writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  mkdirSync(join(dir, '.ralph'));
  writeFileSync(join(dir, '.ralph', 'fix_plan.md'), '- [ ] x\n');
  const git = (...args) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, stdio: 'ignore', maxBuffer: 1 << 30 });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

// The user the loop runs as for the rows of a loop without the setuid clean-up, when the bench runs as root.
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];

// A folder in RAM (tmpfs, by statfs's magic number) for the row that runs the same loop with its project there.
const RAM_DIR = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;

function onRamDisk() {
  try {
    return statfsSync(RAM_DIR).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

/** The loop child's result; `tmp`: the folder its project is made in (the machine's temp folder by default). */
function runLoopChild(loops, { asNobody = false, tmp = tmpdir(), keep = false } = {}) {
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, LOOP_CHILD, String(loops), String(FILES), ...(keep ? ['keep'] : [])];
    const child = asNobody
      ? spawn('setpriv', [...NOBODY, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: tmp, TMPDIR: tmp } })
      : spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`large-tree loop child exited ${code}: ${err.trim().split('\n').pop() ?? ''}`)),
    );
  });
}

/**
 * The whole loop beyond the agent against `git status --porcelain`, side by side in one run. The
 * loops' projects on disk are deleted at the end, not between the runs: a run after a deletion
 * of 50,000 files would pay for it at each file it creates (see large-tree-child.mjs).
 */
export async function benchLargeTreeLoop({ quick = false } = {}) {
  const trees = mkdtempSync(join(tmpdir(), 'ralph-bench-trees-'));
  try {
    // Open to the run as another user, as the machine's temp folder is.
    chmodSync(trees, 0o1777);
    return await largeTreeRows(quick, trees);
  } finally {
    rmSync(trees, { recursive: true, force: true, maxRetries: 5 });
  }
}

/**
 * A loop child's figures: wall times as medians; CPU as means over the same loops. The CPU of
 * finished child processes (git, find: most of a loop's) is counted in 10 ms ticks, so one
 * loop's figure is off by up to a tick, and a median of such figures by as much: over the run,
 * the sums are right within a tick.
 */
function loopFigures(r) {
  const values = (list) => list.filter((v) => v !== null);
  const mean = (list) => values(list).reduce((sum, v) => sum + v, 0) / Math.max(1, values(list).length);
  return {
    loops: values(r.wall).length,
    wall: median(values(r.wall)),
    statusWall: median(values(r.statusWall)),
    cpu: mean(r.cpu),
    // git status at the spawn of each loop whose whole loop was measured.
    statusCpu: mean(r.statusCpu.map((v, i) => (r.cpu[i] === null ? null : v))),
    own: mean(r.ownCpu),
    ownSystem: mean(r.ownSystem),
    replaces: mean(r.replaces),
    // Run as root: the setuid clean-up's walk alone, one `find`, timed beside git status.
    walkCpu: r.walkCpu?.some((v) => v !== null) ? mean(r.walkCpu.map((v, i) => (r.cpu[i] === null ? null : v))) : undefined,
  };
}

function figuresNote(f) {
  return `${f.wall.toFixed(0)} ms wall (median of ${f.loops} loops), ${f.cpu.toFixed(0)} ms CPU (mean; ralph ${f.own.toFixed(0)} ms, ${f.ownSystem.toFixed(0)} of it in the kernel, ${f.replaces.toFixed(1)} state files replaced; the rest the processes it starts) vs git status --porcelain ${f.statusWall.toFixed(0)} ms wall, ${f.statusCpu.toFixed(0)} ms CPU`;
}

async function largeTreeRows(quick, trees) {
  const r = await runLoopChild(quick ? 6 : 12, { tmp: trees, keep: true });
  const f = loopFigures(r);
  const rows = [
    row(
      'a whole loop beyond the agent (50,000 files) ÷ git status --porcelain, wall',
      f.wall / f.statusWall,
      '×',
      1.2,
      'max',
      `${figuresNote(f)} (${FILES} files)`,
    ),
    row('a whole loop beyond the agent (50,000 files) ÷ git status --porcelain, CPU', f.cpu / f.statusCpu, '×', 1.2, 'max'),
  ];
  if (f.walkCpu !== undefined) {
    const walkNote = `${f.walkCpu.toFixed(0)} ms vs ${f.statusCpu.toFixed(0)} ms (means): the lstat of every entry that the clean-up needs, which no share of the loop goes below`;
    rows.push(row('the setuid clean-up walk alone (one find over the tree, as root) ÷ git status, CPU', f.walkCpu / f.statusCpu, '×', null, 'max', walkNote));
  }
  // Run as root, the loop above clears setuid bits after each call; the same loop as another user does not.
  const asOther = process.getuid?.() === 0 ? await runLoopChild(quick ? 6 : 12, { asNobody: true, tmp: trees, keep: true }).catch((error) => error) : undefined;
  if (asOther instanceof Error) rows.push(notMeasured('the same run by another user than root (no setuid clean-up after the call)', asOther.message));
  else if (asOther) {
    const o = loopFigures(asOther);
    const otherNote = `${figuresNote(o)}: ralph run as nobody, no setuid clean-up after the call`;
    rows.push(
      row('the same run by another user than root (no setuid clean-up after the call) ÷ git status, wall', o.wall / o.statusWall, '×', 1.2, 'max', otherNote),
    );
    rows.push(row('the same run by another user than root (no setuid clean-up after the call) ÷ git status, CPU', o.cpu / o.statusCpu, '×', 1.2, 'max'));
  }
  rows.push(...(await ramDiskRows(quick)));
  return [
    ...rows,
    row('whole loops: files written in .git', r.gitWritten.length, 'files', 0, 'max', r.gitWritten.length ? r.gitWritten.slice(0, 5).join(', ') : undefined),
  ];
}

/**
 * The same loop with its project on a RAM disk, beside the rows above: what the disk's file
 * creates and replaces (ralph's state writes, some twenty a loop, each a create and a rename) add
 * to the loop on this machine, a cost that does not grow with the tree. No budget: it explains the rows above.
 */
async function ramDiskRows(quick) {
  const what = 'the same run (as root) with the project on a RAM disk (tmpfs) ÷ git status there';
  if (!onRamDisk()) return [notMeasured(what, `${RAM_DIR} is no tmpfs here`)];
  const r = await runLoopChild(quick ? 6 : 12, { tmp: RAM_DIR }).catch((error) => error);
  if (r instanceof Error) return [notMeasured(what, r.message)];
  const f = loopFigures(r);
  const note = `${figuresNote(f)}, both in RAM`;
  return [row(`${what}, wall`, f.wall / f.statusWall, '×', null, 'max', note), row(`${what}, CPU`, f.cpu / f.statusCpu, '×', null, 'max')];
}

export async function benchContentSnapshot({ quick = false } = {}) {
  const { createContentSnapshotter } = await import(dist('analysis/content-snapshot.js'));
  const { nodeProcessRunner } = await import(dist('platform/process.js'));
  const dir = makeRepo();
  try {
    const snapshotter = createContentSnapshotter({
      projectDir: dir,
      stateDir: join(dir, '.ralph', '.content'),
      excluded: [{ path: '.ralph', directory: true }],
      processRunner: nodeProcessRunner,
      env: GIT_ENV,
    });
    await snapshotter.take();
    const gitBytes = bytesUnder(join(dir, '.git'));
    const runs = quick ? 3 : 7;
    const snapshotMs = [];
    const statusMs = [];
    for (let i = 0; i < runs; i++) {
      writeFileSync(join(dir, 'src0', 'f0.ts'), `export const v0 = ${i};\n`);
      writeFileSync(join(dir, 'big.bin'), Buffer.alloc(3 << 20, i));
      let started = performance.now();
      execFileSync('git', ['status', '--porcelain'], { cwd: dir, env: GIT_ENV, stdio: 'ignore' });
      statusMs.push(performance.now() - started);
      started = performance.now();
      await snapshotter.take();
      snapshotMs.push(performance.now() - started);
    }
    const snapshot = median(snapshotMs);
    const status = median(statusMs);
    const added = bytesUnder(join(dir, '.git')) - gitBytes;
    const note = `snapshot ${snapshot.toFixed(0)} ms vs git status --porcelain ${status.toFixed(0)} ms (median of ${runs}, ${FILES} files)`;
    return [
      row('content snapshot (50,000 files, a loop after the first) ÷ git status --porcelain', snapshot / status, '×', 1.2, 'max', note),
      row('content snapshots: bytes added to .git', Math.max(0, added), 'B', 0),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}
