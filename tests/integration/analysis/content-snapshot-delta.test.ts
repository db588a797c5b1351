// A snapshot made from the last one (the list decoded only where it changed, the id updated by
// the files that changed, the private index patched where its entries changed) is the snapshot a
// fresh snapshotter takes of the same tree, whatever a loop did: files added, removed, renamed,
// rewritten, staged or ignored. The private index is written in place only while it is the file
// ralph wrote last; anything else that wrote to it makes ralph write it whole again.

import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createContentSnapshotter, type ContentSnapshotter } from '../../../lib/analysis/content-snapshot.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

// The filesystem's clock a minute ahead: every file is old enough for the private index to vouch for it.
const AHEAD = () => Date.now() + 60_000;

function snapshotter(p: TmpProject, stateDir: string): ContentSnapshotter {
  return createContentSnapshotter({
    projectDir: p.dir,
    stateDir: p.path(stateDir),
    excluded: [{ path: '.ralph', directory: true }],
    processRunner: nodeProcessRunner,
    env: process.env,
    clock: AHEAD,
    gitStatFrom: 0,
  });
}

/** Each listed file (tracked or untracked, not ignored, outside .ralph/) with its bytes, read afresh. */
function contents(p: TmpProject): Map<string, string> {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: p.dir, encoding: 'utf8' });
  const out = new Map<string, string>();
  for (const path of new Set(listed.split('\0'))) {
    if (path === '' || path.startsWith('.ralph/')) continue;
    try {
      out.set(path, readFileSync(p.path(path), 'utf8'));
    } catch {
      // listed from the index, gone from disk
    }
  }
  return out;
}

/** A small random number generator with a printed seed, so a failure can be replayed. */
function random(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

describe('a snapshot made from the last one', () => {
  it('is the snapshot of the tree taken afresh, loop after loop of random changes', async () => {
    const files: Record<string, string> = { '.gitignore': 'ignored/\n' };
    for (let i = 0; i < 60; i++) files[`src/d${i % 7}/f${i}.ts`] = `${i}\n`;
    const p = tmpProject(files, { git: true });
    project = p;
    const seed = Number(process.env.SNAPSHOT_SEED ?? Date.now() % 100_000);
    const pick = random(seed);
    const live = snapshotter(p, '.ralph/live');
    let last = await live.take();
    let before = contents(p);
    const write = (path: string, text: string): void => {
      mkdirSync(dirname(p.path(path)), { recursive: true });
      writeFileSync(p.path(path), text);
    };
    for (let loop = 0; loop < 12; loop++) {
      for (let k = 0; k < 1 + pick(4); k++) {
        const name = `src/d${pick(9)}/f${pick(80)}.ts`;
        const what = pick(6);
        if (what === 0) rmSync(p.path(name), { force: true });
        else if (what === 1) write(`ignored/${name}`, 'x\n');
        else if (what === 2) p.git('add', '-A');
        else if (what === 3) rmSync(p.path(`src/d${pick(9)}`), { recursive: true, force: true });
        else if (what === 4) {
          write(name, `${loop}\n`);
          const to = `src/d${pick(9)}/moved${loop}.ts`;
          mkdirSync(dirname(p.path(to)), { recursive: true });
          renameSync(p.path(name), p.path(to));
        } else write(name, `${loop}-${k}\n`);
      }
      const now = await live.take();
      const fresh = await snapshotter(p, `.ralph/fresh-${loop}`).take();
      expect(now.id, `seed ${seed}, loop ${loop}`).toBe(fresh.id);
      const after = contents(p);
      const differ = [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path)).sort();
      expect(await live.changedPaths(last, now), `seed ${seed}, loop ${loop}`).toEqual(differ);
      last = now;
      before = after;
    }
  });

  it('patches its private index in place while nothing else wrote to it, and writes it whole when something did', async () => {
    const p = tmpProject({ 'a.ts': 'a\n', 'b.ts': 'b\n' }, { git: true });
    project = p;
    const snap = snapshotter(p, '.ralph/s');
    const index = p.path('.ralph/s/index');
    await snap.take();
    await snap.take();
    const written = statSync(index).ino;
    appendFileSync(p.path('a.ts'), 'more\n');
    const changed = await snap.take();
    expect(statSync(index).ino).toBe(written);
    // Something else writes the same bytes into it: ralph no longer trusts the file.
    writeFileSync(index, readFileSync(index));
    appendFileSync(p.path('b.ts'), 'more\n');
    const next = await snap.take();
    expect(statSync(index).ino).not.toBe(written);
    expect(await snap.changedPaths(changed, next)).toEqual(['b.ts']);
  });
});
