// The guarded paths of a project: the files that configure what ralph or the agent CLI will run
// — `.ralphrc`, git's config, attributes and hooks, the agent CLIs' project settings. The loop
// undoes every change to them after each agent call (lib/containment/guarded-files.ts); a sandbox
// mounts those that exist read-only, so under one the change cannot happen at all.

import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Project-relative files whose every change is undone. */
export const GUARDED_FILES = [
  '.ralphrc',
  '.git/config',
  // Where git looks for the repository's configuration besides config: a commondir file sends
  // it to another folder's config, config.worktree adds one.
  '.git/commondir',
  '.git/config.worktree',
  '.git/info/attributes',
  // Where git also looks for objects: another repository's, outside the project.
  '.git/objects/info/alternates',
  // Claude Code (permissions, hooks), Codex, Gemini CLI and OpenCode project settings.
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.codex/config.toml',
  '.gemini/settings.json',
  'opencode.json',
  'opencode.jsonc',
  '.opencode/opencode.json',
];
export const HOOKS_DIR = '.git/hooks';

/**
 * The project-relative folders holding guarded files, parents first (`.git` before `.git/info`).
 * A link the agent puts in place of one would send ralph's reads and writes of the files below
 * it out of the project, so each is guarded as well (lib/containment/guarded-files.ts).
 */
export const GUARDED_DIRS: readonly string[] = [
  ...new Set(
    [...GUARDED_FILES, `${HOOKS_DIR}/x`].flatMap((file) => {
      const parts = file.split('/').slice(0, -1);
      return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    }),
  ),
].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));

/** Every guarded file, with each file now in `.git/hooks/` (project-relative). */
export function guardedPaths(projectDir: string): string[] {
  const hooks = join(projectDir, HOOKS_DIR);
  let names: string[];
  try {
    names = lstatSync(hooks).isDirectory() ? readdirSync(hooks) : [];
  } catch {
    names = [];
  }
  return [...GUARDED_FILES, ...names.map((n) => `${HOOKS_DIR}/${n}`)];
}

export const WORKTREES_DIR = '.git/worktrees';
/** The files of a linked worktree's admin folder that say where git looks for it and its repository. */
const WORKTREE_POINTERS = ['gitdir', 'commondir', 'config.worktree'];

/**
 * The pointer files of each linked worktree the repository has now (`.git/worktrees/<name>/…`,
 * project-relative). Recorded when the run starts: a worktree ralph adds later (`--parallel`) is
 * anchored by the git gateway when it is made.
 */
export function worktreePointerPaths(projectDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(projectDir, WORKTREES_DIR)).sort();
  } catch {
    return [];
  }
  return names.flatMap((name) => WORKTREE_POINTERS.map((file) => `${WORKTREES_DIR}/${name}/${file}`));
}

/**
 * What a sandbox mounts read-only over the project's read-write mount (absolute host paths): each
 * guarded file that is a regular file now, and the hooks folder as a whole, so no hook can be
 * added either. A link is left out (a bind would follow it); changing or adding one is undone
 * after the call like any other guarded change.
 */
export function readOnlyGuardedPaths(projectDir: string): string[] {
  const mounts: string[] = [];
  for (const path of [...GUARDED_FILES, HOOKS_DIR]) {
    const full = join(projectDir, path);
    try {
      const st = lstatSync(full);
      if (path === HOOKS_DIR ? st.isDirectory() : st.isFile()) mounts.push(full);
    } catch {
      // absent: nothing to mount
    }
  }
  return mounts;
}
