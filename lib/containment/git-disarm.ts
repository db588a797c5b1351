// Git settings the agent leaves in a nested repository run on the user's next git command:
// `git status` in the project enters a repository committed inside it (a gitlink) and runs its
// fsmonitor and clean filters. ralph's own git never enters one (lib/platform/git-gateway.ts),
// and the project's own `.git/` is guarded (lib/containment/guarded-files.ts); what is left is
// each nested repository the loop created or changed, wherever it is (lib/platform/folder-walk.ts
// finds them on disk, in ignored folders too). After each loop ralph disarms those: every
// setting that names a program (hooks path, fsmonitor, filters, diff and merge drivers, textconv,
// pager, ssh command, credential helpers, …) and every include is removed from their config
// files, their hooks are moved to the quarantine, and a gitfile or commondir that leads out of
// the project is moved there too. What was disarmed is said in a warning.

import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isExecKey } from '../platform/git-config-pins.js';
import { hashText } from '../platform/hash.js';
import type { ProcessRunner } from '../platform/process.js';
import { assertNoLinkedDirectory } from '../state/no-follow.js';
import { RALPH_DIR } from '../state/paths.js';
import { createFolderWalker, type FolderWalker } from '../platform/folder-walk.js';
import { runGitCommand } from '../platform/git-operations.js';

/** The nested repositories as the run knows them: each (project-relative) with a fingerprint of what configures it, and the walk that finds them. */
export interface NestedRepositories {
  fingerprints: Map<string, string>;
  walker: FolderWalker;
}

export interface DisarmContext {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  processRunner: ProcessRunner;
}

export interface Disarmed {
  /** The nested repository, project-relative. */
  repository: string;
  /** What was removed or moved aside, e.g. `.git/config: core.fsmonitor`. */
  removed: string[];
  /** A repository the run did not start with. */
  created: boolean;
}

// ralph's own folders that hold repositories it made or what it moved aside: the units' worktrees
// of `ralph --parallel` (each a loop of its own, disarmed there) and the quarantine, where a gitfile
// or a hook moved aside must not be found again as a repository to disarm.
const RALPH_OWN = [`${RALPH_DIR}/worktrees`, `${RALPH_DIR}/quarantine`];

/** The nested repositories as the run starts, each with its fingerprint. */
export async function recordNestedRepositories(ctx: DisarmContext): Promise<NestedRepositories> {
  const walker = createFolderWalker(ctx.projectDir, RALPH_OWN);
  const fingerprints = new Map<string, string>();
  for (const repository of walker.walk().repositories) fingerprints.set(repository, fingerprint(ctx.projectDir, repository));
  return { fingerprints, walker };
}

/**
 * Disarms each nested repository that is new or whose configuration changed since `known` (which
 * is updated to what the repositories are now). `quarantine` is project-relative.
 */
export async function disarmNestedRepositories(ctx: DisarmContext, known: NestedRepositories, quarantine: string): Promise<Disarmed[]> {
  const out: Disarmed[] = [];
  // Parents first: a repository is disarmed before the ones inside it are looked at.
  for (const repository of known.walker.walk().repositories) {
    const before = known.fingerprints.get(repository);
    if (before !== undefined && before === fingerprint(ctx.projectDir, repository)) continue;
    const removed = await disarmRepository(ctx, repository, quarantine);
    known.fingerprints.set(repository, fingerprint(ctx.projectDir, repository));
    if (removed.length > 0 || before === undefined) out.push({ repository, removed, created: before === undefined });
  }
  // Nothing moved or changed: the walk stands for the content snapshot that follows.
  if (out.every((each) => each.removed.length === 0)) known.walker.keepLatest();
  return out;
}

/** The files of a nested repository that say what git runs there or where it looks. */
function configuringFiles(projectDir: string, repository: string): string[] {
  const top = join(projectDir, repository);
  const dotGit = join(top, '.git');
  const gitDir = gitDirOf(dotGit);
  const files = [dotGit];
  if (gitDir === undefined) return files;
  files.push(...['config', 'config.worktree', 'commondir', 'info/attributes'].map((name) => join(gitDir, name)));
  files.push(...hooksOf(gitDir));
  const commonDir = commonDirOf(gitDir);
  if (commonDir !== undefined && commonDir !== gitDir && inside(projectDir, commonDir)) {
    files.push(join(commonDir, 'config'), ...hooksOf(commonDir));
  }
  return files;
}

function fingerprint(projectDir: string, repository: string): string {
  const parts = configuringFiles(projectDir, repository).map((file) => `${file}\0${readOrEmpty(file)}`);
  return hashText(parts.join('\0\0'));
}

async function disarmRepository(ctx: DisarmContext, repository: string, quarantine: string): Promise<string[]> {
  const { projectDir } = ctx;
  const removed: string[] = [];
  const dotGit = join(projectDir, repository, '.git');
  if (isLink(dotGit)) {
    moveAside(projectDir, dotGit, quarantine);
    return ['.git (a link)'];
  }
  const gitDir = gitDirOf(dotGit);
  if (gitDir === undefined) return removed;
  if (!inside(projectDir, gitDir)) {
    moveAside(projectDir, dotGit, quarantine);
    return [`.git (a gitfile leading out of the project, to ${gitDir})`];
  }
  const dirs = [gitDir];
  const commonDir = commonDirOf(gitDir);
  if (commonDir !== undefined && commonDir !== gitDir) {
    if (inside(projectDir, commonDir)) dirs.push(commonDir);
    else {
      moveAside(projectDir, join(gitDir, 'commondir'), quarantine);
      removed.push(`${rel(projectDir, join(gitDir, 'commondir'))} (leading out of the project, to ${commonDir})`);
    }
  }
  for (const dir of dirs) {
    for (const name of ['config', 'config.worktree']) removed.push(...(await disarmConfig(ctx, join(dir, name))));
    for (const hook of hooksOf(dir)) {
      moveAside(projectDir, hook, quarantine);
      removed.push(`${rel(projectDir, hook)} (hook)`);
    }
  }
  return removed;
}

/** Removes every program-naming key and every include from one config file. */
async function disarmConfig(ctx: DisarmContext, file: string): Promise<string[]> {
  if (!isFile(file)) return [];
  // `git config --file` reads that file alone, follows no include, and runs nothing.
  const listing = await runGitCommand(ctx.processRunner, ['config', '--file', file, '-z', '--list'], { cwd: ctx.projectDir, env: ctx.env, timeoutMs: 30_000 });
  if (listing.code !== 0) return [];
  const keys = new Set(
    listing.stdout
      .split('\0')
      .filter(Boolean)
      .map((entry) => entry.split('\n')[0]!)
      .filter((key) => isExecKey(key) || isIncludeKey(key)),
  );
  const removed: string[] = [];
  for (const key of keys) {
    const unset = await runGitCommand(ctx.processRunner, ['config', '--file', file, '--unset-all', key], {
      cwd: ctx.projectDir,
      env: ctx.env,
      timeoutMs: 30_000,
    });
    if (unset.code === 0) removed.push(`${rel(ctx.projectDir, file)}: ${key}`);
  }
  return removed;
}

function isIncludeKey(key: string): boolean {
  return key === 'include.path' || /^includeif\..+\.path$/.test(key);
}

/** The git dir a `.git` entry names: itself when a folder, the `gitdir:` of a gitfile. */
function gitDirOf(dotGit: string): string | undefined {
  try {
    const st = lstatSync(dotGit);
    if (st.isDirectory()) return dotGit;
    if (!st.isFile()) return undefined;
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'))?.[1];
    return named ? resolve(dirname(dotGit), named) : undefined;
  } catch {
    return undefined;
  }
}

function commonDirOf(gitDir: string): string | undefined {
  const text = readOrEmpty(join(gitDir, 'commondir')).trim();
  return text === '' ? undefined : resolve(gitDir, text);
}

function hooksOf(dir: string): string[] {
  const hooks = join(dir, 'hooks');
  try {
    if (!lstatSync(hooks).isDirectory()) return [];
    return readdirSync(hooks)
      .filter((name) => !name.endsWith('.sample'))
      .sort()
      .map((name) => join(hooks, name));
  } catch {
    return [];
  }
}

/** Moves a file into the quarantine (keeping its project path), or leaves it when a link is on the way there. */
function moveAside(projectDir: string, file: string, quarantine: string): void {
  const target = join(projectDir, quarantine, relative(projectDir, file));
  try {
    assertNoLinkedDirectory(dirname(target));
    mkdirSync(dirname(target), { recursive: true });
    assertNoLinkedDirectory(dirname(target));
    renameSync(file, target);
  } catch {
    // Nowhere safe to keep it: it stays, and the warning names it.
  }
}

/** Whether `path` really lies inside the project (every link on the way resolved). */
function inside(projectDir: string, path: string): boolean {
  try {
    return realpathSync(path).startsWith(realpathSync(projectDir) + sep);
  } catch {
    return false;
  }
}

function rel(projectDir: string, path: string): string {
  return relative(projectDir, path);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function readOrEmpty(path: string): string {
  try {
    const st = lstatSync(path);
    return st.isFile() ? readFileSync(path, 'utf8') : st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'other';
  } catch {
    return '';
  }
}
