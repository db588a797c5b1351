// A content snapshotter as a loop run as root uses it: after each call the walk that clears
// setuid bits names what changed (lib/platform/tree-changes.ts), the disarm step walks the
// folders, then the snapshot; and the id a new snapshotter, which hashes every file, gives the
// same tree. The clocks are set ahead so the files a test made are old enough to be vouched for.

import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { createContentSnapshotter, type SnapshotFs } from '../../lib/analysis/content-snapshot.js';
import { createFolderWalker } from '../../lib/platform/folder-walk.js';
import { nodeProcessRunner, type ProcessRunner } from '../../lib/platform/process.js';
import { createTreeChanges } from '../../lib/platform/tree-changes.js';
import { stripSetuidFiles } from '../../lib/sandbox/strip-setuid.js';
import { tmpProject, type TmpProject } from './tmp-project.js';

// The folder walk's clock a minute ahead: the folders the test made count as settled.
const AHEAD = () => Date.now() + 60_000;

// The filesystem's clock and the walk's a second ahead (so every file made before a snapshot is
// older than its stamp's second), and the snapshot asking the walk for changes from a second
// and 10 ms (a tick of the kernel's coarse clock) before its stamp: from just before now.
const AHEAD_MS = 1000;
const MARGIN_MS = AHEAD_MS + 10;

/** The filesystem's clock set ahead (`back`: ms taken off). */
function fsClock(p: TmpProject, back: { ms: number }): () => number {
  return () => {
    writeFileSync(p.path('.ralph/.clock'), '');
    return statSync(p.path('.ralph/.clock')).mtimeMs + AHEAD_MS - back.ms;
  };
}

/** A git project of 30 files (`src/d0..d2/f<i>.ts`), an ignored folder and `files`, with its snapshotter, its walk and a fresh snapshot's id. */
export function walkedSnapshots(files: Record<string, string> = {}, fs?: SnapshotFs) {
  const tree: Record<string, string> = { '.gitignore': 'ignored/\n', '.ralph/fix_plan.md': '- [ ] x\n', 'ignored/x': 'not content\n' };
  for (let i = 0; i < 30; i++) tree[`src/d${i % 3}/f${i}.ts`] = `export const v${i} = ${i};\n`;
  const p = tmpProject({ ...tree, ...files }, { git: true });
  const started: string[][] = [];
  const runner: ProcessRunner = {
    start: (cmd, args, options) => (started.push([cmd, ...args]), nodeProcessRunner.start(cmd, args, options)),
    run: (cmd, args, options) => (started.push([cmd, ...args]), nodeProcessRunner.run(cmd, args, options)),
  };
  const changes = createTreeChanges({ wall: () => Date.now() + AHEAD_MS, monotonic: () => performance.now() });
  const folders = createFolderWalker(p.dir, [], AHEAD);
  const back = { ms: 0 };
  const snap = createContentSnapshotter({
    projectDir: p.dir,
    stateDir: p.path('.ralph/.content'),
    excluded: [{ path: '.ralph', directory: true }],
    processRunner: runner,
    env: process.env,
    clock: fsClock(p, back),
    gitStatFrom: 0,
    folders,
    changes,
    walkMarginMs: MARGIN_MS,
    ...(fs ? { fs } : {}),
  });
  let fresh = 0;
  return {
    p,
    changes,
    back,
    /** A loop's end: the walk after the call (as root), the disarm step's folder walk, the snapshot; with the git commands it ran. */
    async afterCall(options: { sweep?: boolean } = {}) {
      if (options.sweep !== false) await stripSetuidFiles(p.dir, { processRunner: runner, changes });
      folders.walk();
      folders.keepLatest();
      const from = started.length;
      const { id } = await snap.take();
      const git = started.slice(from).filter(([cmd]) => cmd === 'git');
      return { id, diffFiles: git.filter((args) => args.includes('diff-files')).length };
    },
    /** The id a new snapshotter, which hashes every file, gives the tree. */
    async freshId() {
      const other = createContentSnapshotter({
        projectDir: p.dir,
        stateDir: p.path(`.ralph/.fresh${fresh++}`),
        excluded: [{ path: '.ralph', directory: true }],
        processRunner: nodeProcessRunner,
        env: process.env,
      });
      return (await other.take()).id;
    },
  };
}

/** `path` rewritten with `text`, its size and times as they were (what `touch -d` puts back). */
export function rewriteUnseen(p: TmpProject, path: string, text: string): void {
  const before = statSync(p.path(path));
  expect(Buffer.byteLength(text)).toBe(before.size);
  writeFileSync(p.path(path), text);
  utimesSync(p.path(path), before.atime, before.mtime);
}
