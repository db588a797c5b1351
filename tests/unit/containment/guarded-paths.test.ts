// What a sandbox mounts read-only: the guarded files that are regular files, git's hooks, info
// and objects/info folders whole, a gitfile, never a link (a bind would follow it) and nothing
// absent; and the `.git` folder a sandbox binds onto itself.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GUARDED_DIRS, guardedPaths, pinnedGitDir, readOnlyGuardedPaths } from '../../../lib/containment/guarded-paths.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readOnlyGuardedPaths', () => {
  it('lists existing regular guarded files and the hooks folder; skips links and absent files', () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-guarded-'));
    mkdirSync(join(dir, '.git/hooks'), { recursive: true });
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.ralphrc'), 'MAX_LOOPS=3\n');
    writeFileSync(join(dir, '.git/config'), '[core]\n');
    writeFileSync(join(dir, '.git/hooks/pre-commit'), '#!/bin/sh\n');
    symlinkSync(join(dir, '.ralphrc'), join(dir, '.claude/settings.json'));
    expect(readOnlyGuardedPaths(dir)).toEqual([join(dir, '.ralphrc'), join(dir, '.git/config'), join(dir, '.git/hooks')]);
    expect(guardedPaths(dir)).toContain('.git/hooks/pre-commit');
  });

  it("lists git's info/ and objects/info/ folders whole, and a linked worktree's gitfile", () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-guarded-'));
    for (const sub of ['.git/info', '.git/objects/info', '.git/hooks']) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, '.git/config'), '[core]\n');
    writeFileSync(join(dir, '.git/info/attributes'), '* -text\n');
    writeFileSync(join(dir, '.git/objects/info/alternates'), '/x\n');
    expect(readOnlyGuardedPaths(dir)).toEqual([join(dir, '.git/config'), join(dir, '.git/info'), join(dir, '.git/hooks'), join(dir, '.git/objects/info')]);
    expect(pinnedGitDir(dir, { make: false })).toBe(join(dir, '.git'));
    const worktree = join(dir, 'wt');
    mkdirSync(worktree);
    writeFileSync(join(worktree, '.git'), 'gitdir: /x\n');
    expect(readOnlyGuardedPaths(worktree)).toEqual([join(worktree, '.git')]);
    expect(pinnedGitDir(worktree, { make: false })).toBeUndefined();
  });
});

describe('GUARDED_DIRS', () => {
  it('lists the folders of the guarded files parents first, then by name', () => {
    expect(GUARDED_DIRS).toEqual(['.claude', '.codex', '.gemini', '.git', '.opencode', '.git/hooks', '.git/info', '.git/objects', '.git/objects/info']);
  });

  // Every run loads this module before its first agent call: the first locale-aware comparison
  // of a process sets up ICU's collator, about 6 ms of CPU, for paths that are plain ASCII.
  it('is sorted without a locale-aware comparison when the module loads', async () => {
    const localeCompare = vi.spyOn(String.prototype, 'localeCompare');
    try {
      vi.resetModules();
      const fresh = await import('../../../lib/containment/guarded-paths.js');
      expect(fresh.GUARDED_DIRS).toEqual(GUARDED_DIRS);
      expect(localeCompare).not.toHaveBeenCalled();
    } finally {
      localeCompare.mockRestore();
    }
  });
});
