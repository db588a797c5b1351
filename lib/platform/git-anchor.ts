// A repository as the git gateway (git-gateway.ts) fixed it when it first looked: its git dir,
// common dir and work tree, each known by identity, and the small files that tell git where
// else to look — a worktree's `commondir` and `gitdir`, the common dir's
// `objects/info/alternates` — with their bytes. Before each call all of it is compared with
// what is there now; a difference stops the run naming the path (GitRepositoryChanged).

import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, RalphError } from '../errors.js';

/** A folder of the repository as the run found it: a directory (by device and inode) or a gitfile's text. */
export type Identity = string;

/** A repository as ralph first found it from one working directory. */
export interface GitAnchor {
  gitDir: string;
  commonDir: string;
  /** Absent for a bare repository. */
  workTree?: string;
  gitDirId: Identity;
  commonDirId: Identity;
  /** `<workTree>/.git`: the directory's identity, or `file:` and the gitfile's text. */
  dotGit?: Identity;
  /** Each file that says where git looks, and its text when the anchor was made (null: none). */
  pointers: Map<string, string | null>;
  /** The repository (its work tree, or its git dir) belongs to another user than ralph's. */
  foreign: boolean;
}

/** A repository ralph guards changed under it: the run stops (exit 2) naming the path. */
export class GitRepositoryChanged extends RalphError {
  constructor(path: string, what: string) {
    super('git_repository_changed', `${path} ${what} since the run started; ralph runs no git command there`, {
      exitCode: EXIT.halted,
      hint: `Something in the project (the agent) changed git's own files. Check ${path}, put the repository back as it was (the agent's versions are kept under .ralph/quarantine/), then run ralph again`,
    });
  }
}

/** The anchor of a repository found at `gitDir`/`commonDir` (and `workTree`), as it is now. */
export function makeAnchor(gitDir: string, commonDir: string, workTree: string | undefined): GitAnchor {
  const pointers = new Map<string, string | null>();
  for (const file of pointerFiles(gitDir, commonDir)) pointers.set(file, readOrNull(file));
  const uid = process.getuid?.();
  return {
    gitDir,
    commonDir,
    ...(workTree ? { workTree, dotGit: identity(join(workTree, '.git')) } : {}),
    gitDirId: identity(gitDir),
    commonDirId: identity(commonDir),
    pointers,
    foreign: uid !== undefined && [workTree ?? gitDir, commonDir].some((path) => ownerOf(path) !== uid),
  };
}

// A linked worktree's `commondir` and `gitdir` (in its own git dir), and the alternates of the objects.
function pointerFiles(gitDir: string, commonDir: string): string[] {
  return [join(gitDir, 'commondir'), ...(gitDir === commonDir ? [] : [join(gitDir, 'gitdir')]), join(commonDir, 'objects', 'info', 'alternates')];
}

/** Stops when the repository is no longer the one anchored. */
export function assertUnchanged(anchor: GitAnchor): void {
  if (anchor.workTree !== undefined && anchor.dotGit !== undefined) {
    const dotGit = join(anchor.workTree, '.git');
    if (identity(dotGit) !== anchor.dotGit) throw new GitRepositoryChanged(dotGit, describeChange(anchor.dotGit, identity(dotGit)));
  }
  if (identity(anchor.gitDir) !== anchor.gitDirId) throw new GitRepositoryChanged(anchor.gitDir, 'was moved or replaced');
  if (identity(anchor.commonDir) !== anchor.commonDirId) throw new GitRepositoryChanged(anchor.commonDir, 'was moved or replaced');
  for (const [file, before] of anchor.pointers) {
    const now = readOrNull(file);
    if (now !== before) throw new GitRepositoryChanged(file, before === null ? 'was written' : now === null ? 'was removed' : 'was changed');
  }
}

function describeChange(before: Identity, now: Identity): string {
  if (now === 'absent') return 'was removed';
  if (now.startsWith('file:'))
    return `was replaced by a file pointing to ${now
      .slice('file:'.length)
      .replace(/^gitdir:\s*/, '')
      .trim()}`;
  return before.startsWith('file:') ? 'was changed' : 'was replaced';
}

export function identity(path: string): Identity {
  try {
    const st = lstatSync(path);
    if (st.isDirectory()) return `dir:${st.dev}:${st.ino}`;
    if (st.isFile()) return `file:${readFileSync(path, 'utf8')}`;
    return 'other';
  } catch {
    return 'absent';
  }
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function ownerOf(path: string): number | undefined {
  try {
    return lstatSync(path).uid;
  } catch {
    return undefined;
  }
}
