// The guarded paths of a project: the files that configure what ralph or the agent CLI will run
// — `.ralphrc`, git's config, attributes and hooks, the agent CLIs' project settings. The loop
// undoes every change to them after each agent call (lib/containment/guarded-files.ts); a sandbox
// mounts those that exist read-only, so under one the change cannot happen at all.

import { chownSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
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
  // By code unit, not localeCompare: the paths are ASCII, and a first locale-aware comparison
  // sets up ICU's collator (milliseconds at every start of a run).
].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));

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

// What of the project's own `.git` a sandbox shows read-only: what says what git runs and where
// it looks. Folders whole, so nothing can be added in them either (a hook, `info/exclude`,
// alternates). Objects, refs, the index and the logs stay writable: the agent can commit.
const GIT_READ_ONLY_FILES = ['.git/config', '.git/config.worktree', '.git/commondir'];
const GIT_READ_ONLY_DIRS = ['.git/info', HOOKS_DIR, '.git/objects/info'];

/**
 * What a sandbox mounts read-only over the project's read-write mount (absolute host paths): each
 * guarded file that is a regular file now, git's folders above (those that exist) whole, and a
 * gitfile at `.git` (a linked worktree's). A link is left out (a bind would follow it); changing
 * or adding one is undone after the call like any other guarded change.
 */
export function readOnlyGuardedPaths(projectDir: string): string[] {
  const mounts: string[] = [];
  const add = (path: string, kind: 'file' | 'dir'): void => {
    const full = join(projectDir, path);
    try {
      const st = lstatSync(full);
      if (kind === 'dir' ? st.isDirectory() : st.isFile()) mounts.push(full);
    } catch {
      // absent: nothing to mount
    }
  };
  const inGitDirs = (path: string) => GIT_READ_ONLY_DIRS.some((dir) => path.startsWith(`${dir}/`));
  for (const path of GUARDED_FILES) if (!inGitDirs(path) && !GIT_READ_ONLY_FILES.includes(path)) add(path, 'file');
  for (const path of [...GIT_READ_ONLY_FILES, '.git']) add(path, 'file');
  for (const path of GIT_READ_ONLY_DIRS) add(path, 'dir');
  return mounts;
}

/**
 * The project's `.git` folder, when it is one: a sandbox binds it onto itself (writable), which
 * makes it a mount point that cannot be renamed or replaced from inside, and first makes the
 * folders it shows read-only that git would make itself (`info/`, `objects/info/`), so that the
 * agent cannot make them with alternates or an exclude file in them.
 */
export function pinnedGitDir(projectDir: string, options: { make: boolean }): string | undefined {
  const dotGit = join(projectDir, '.git');
  let owner: { uid: number; gid: number };
  try {
    const st = lstatSync(dotGit);
    if (!st.isDirectory()) return undefined;
    owner = { uid: st.uid, gid: st.gid };
  } catch {
    return undefined;
  }
  if (options.make) {
    for (const dir of GIT_READ_ONLY_DIRS) {
      try {
        mkdirSync(join(projectDir, dir));
        // Its repository's owner's, as git would have made it (ralph may run as root).
        if (process.getuid?.() === 0) chownSync(join(projectDir, dir), owner.uid, owner.gid);
      } catch {
        // there already, or cannot be made (then it is not mounted)
      }
    }
  }
  return dotGit;
}
