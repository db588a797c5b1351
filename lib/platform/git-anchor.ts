// A repository as the git gateway (git-gateway.ts) fixed it when it first looked: its git dir,
// common dir and work tree, each known by identity, and the small files that tell git where
// else to look — a worktree's `commondir` and `gitdir`, the common dir's
// `objects/info/alternates` — with their bytes. Before each call all of it is compared with
// what is there now; a difference stops the run naming the path (GitRepositoryChanged). Here
// too: how the first look finds where a folder's repository is (and where its HEAD stood), and
// the refusal of another user's repository whose config moves its work tree.

import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
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

/** A git call that looks at the repository (the gateway runs it with every program setting pinned off). */
export type Look = (args: readonly string[], env?: NodeJS.ProcessEnv) => { code: number | null; stdout: string };

const LOCATION = ['rev-parse', '--absolute-git-dir', '--git-common-dir', '--is-bare-repository'];

// With the location, the commit HEAD names: `--verify -q` prints it last, or (no commit yet)
// nothing, and then exits 1 instead of 0.
const HEAD_COMMIT = ['--verify', '-q', 'HEAD^{commit}'];
const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export interface Located {
  gitDir: string;
  common: string;
  workTree: string | undefined;
  /** The commit HEAD named (null: none yet), when the look asked. */
  head?: string | null;
}

/**
 * Where the repository of a folder is: its git dir, common dir and work tree (none for a bare
 * repository or a folder inside the git dir), and for a folder of a work tree the commit HEAD
 * names. One rev-parse answers a folder of a work tree; elsewhere `--show-toplevel` fails the
 * call, and the location is asked without it.
 */
export function locate(look: Look): Located | undefined {
  const all = look([...LOCATION, '--show-toplevel', ...HEAD_COMMIT]);
  if (all.code === 0 || all.code === 1) {
    const [gitDir, common, bare, ...rest] = all.stdout.replace(/\n$/, '').split('\n');
    const head = all.code === 0 && COMMIT_ID.test(rest.at(-1) ?? '') ? rest.pop()! : null;
    const top = rest.join('\n');
    if (gitDir && common && top && (all.code === 1 || head !== null)) return { gitDir, common, workTree: bare === 'true' ? undefined : top, head };
  }
  const found = look(LOCATION);
  const [gitDir, common, bare] = found.stdout.split('\n');
  if (found.code !== 0 || !gitDir || !common) return undefined;
  const top = bare === 'true' ? undefined : look(['rev-parse', '--show-toplevel']);
  return { gitDir, common, workTree: top && top.code === 0 ? top.stdout.replace(/\n$/, '') : undefined };
}

/**
 * Another user's repository is worked in where its `.git` is, never where its config's
 * `core.worktree` says: that would have ralph add and commit (and push) files of a folder the
 * repository's owner may not read.
 */
export function assertOwnWorkTree(workTree: string, gitDir: string): void {
  const dotGit = join(workTree, '.git');
  let leads: string | undefined;
  try {
    leads = lstatSync(dotGit).isDirectory() ? dotGit : resolve(workTree, /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'))?.[1] ?? '');
  } catch {
    leads = undefined;
  }
  if (leads !== undefined && realpathOr(leads) === realpathOr(gitDir)) return;
  throw new RalphError(
    'git_foreign_worktree',
    `The repository ${gitDir} belongs to another user and its config names ${workTree} as its work tree; ralph works in no folder but the project's`,
    {
      exitCode: EXIT.halted,
      hint: 'Remove core.worktree from the repository config (git config --unset core.worktree), or run ralph as the repository owner',
    },
  );
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
