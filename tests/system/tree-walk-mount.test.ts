// The content snapshot of a loop run as root takes its stat check from the walk that cleared
// setuid bits after the call. A mount changes no ctime in the project: a folder bound over by
// an older copy of it is found by the folder walk (read again: another inode), and the walk,
// like `find . -xdev`, does not enter another filesystem, so a file there is never vouched for
// by it. Each with a file changed unseen (same size and times) gives the id a fresh
// snapshotter gives. Needs root (mount).

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireRoot } from '../helpers/sandbox-tools.js';
import { rewriteUnseen, walkedSnapshots } from '../helpers/walked-snapshots.js';
import { nodeProcessRunner } from '../../lib/platform/process.js';
import { createTreeChanges } from '../../lib/platform/tree-changes.js';
import { stripSetuidFiles } from '../../lib/sandbox/strip-setuid.js';
import type { TmpProject } from '../helpers/tmp-project.js';

const mounted: string[] = [];
let project: TmpProject | undefined;
afterEach(() => {
  for (const dir of mounted.splice(0)) execFileSync('umount', [dir]);
  project?.cleanup();
});

beforeAll(() => requireRoot('they mount a filesystem inside the project'));

function mountTmpfs(dir: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', dir]);
  mounted.push(dir);
}

describe('a filesystem mounted in the project, which the walk after the call does not enter', () => {
  it('a folder mounted over after the run started, by an older copy of it: its files are looked at again', async () => {
    const s = walkedSnapshots();
    project = s.p;
    // The same names, sizes and times in a copy made before the walks, one file's bytes changed.
    execFileSync('cp', ['-a', s.p.path('src/d1'), s.p.path('ignored/d1')]);
    rewriteUnseen(s.p, 'ignored/d1/f4.ts', 'export const v4 = 0;\n');
    const first = await s.afterCall();
    await s.afterCall();
    expect(await s.afterCall()).toMatchObject({ id: first.id, diffFiles: 0 });
    // Bound over src/d1 (the same filesystem): no ctime in it is newer than the last walk.
    execFileSync('mount', ['--bind', s.p.path('ignored/d1'), s.p.path('src/d1')]);
    mounted.push(s.p.path('src/d1'));
    const after = await s.afterCall();
    expect(after.id).toBe(await s.freshId());
    expect(after.id).not.toBe(first.id);
  });

  it('a mount there from the start: a file on it changed unseen is seen', async () => {
    const s = walkedSnapshots();
    project = s.p;
    mountTmpfs(s.p.path('data'));
    writeFileSync(s.p.path('data/table.csv'), 'a,1\n');
    const first = await s.afterCall();
    expect(first.id).toBe(await s.freshId());
    // A loop more: the folder made for the mount, just before the first, is older than the walk asks about.
    await s.afterCall();
    expect(await s.afterCall()).toMatchObject({ id: first.id, diffFiles: 0 });
    rewriteUnseen(s.p, 'data/table.csv', 'b,2\n');
    const after = await s.afterCall();
    expect(after.id).toBe(await s.freshId());
    expect(after.id).not.toBe(first.id);
  });

  it('a top entry mounted on: the walks side by side, which stat no top entry while the mount table lists nothing below the project, leave it out', async () => {
    const s = walkedSnapshots();
    project = s.p;
    for (let d = 0; d < 4; d++) mkdirSync(s.p.path(`top${d}/deep`), { recursive: true });
    mountTmpfs(s.p.path('data'));
    writeFileSync(s.p.path('data/tool'), '#!/bin/sh\n');
    chmodSync(s.p.path('data/tool'), 0o4755);
    const changes = createTreeChanges();
    // As for a large tree: the walks share the top entries out, one per core.
    changes.want(0, 50_000);
    expect(await stripSetuidFiles(s.p.dir, { processRunner: nodeProcessRunner, changes })).toEqual([]);
    const entries = changes.take()?.entries ?? [];
    expect(entries).toEqual(expect.arrayContaining(['top3/deep', 'src/d0/f0.ts']));
    if (availableParallelism() > 1) expect(entries.filter((entry) => entry.startsWith('data'))).toEqual([]);
  });
});
