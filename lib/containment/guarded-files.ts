// Guarded files: what configures the programs ralph or the agent CLI will run — `.ralphrc`,
// `.git/config`, `.git/info/attributes`, `.git/hooks/`, the agent CLIs' project settings and
// package.json's test script. Their bytes are recorded when the run starts; after each agent
// call a change is undone (the agent's version moved to `.ralph/quarantine/<time>/…` for the
// user to read) and reported. Between runs the user edits them freely: the next run records
// them afresh. The rule: ralph runs nothing the agent could have changed since the run started.

import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { GUARDED_DIRS, WORKTREES_DIR, guardedPaths, worktreePointerPaths } from './guarded-paths.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { assertNoLinkedDirectory } from '../state/no-follow.js';

const PACKAGE_JSON = 'package.json';

export interface Recorded {
  bytes: Buffer | null;
  mode: number;
}

/** What stood at a guarded folder's path: a folder, a link (where it led), nothing, or something else. */
export type FolderState = { kind: 'folder'; id: string } | { kind: 'link'; target: string; real: string | undefined } | { kind: 'absent' } | { kind: 'other' };

export interface GuardedFiles {
  projectDir: string;
  files: Map<string, Recorded>;
  /** Each of GUARDED_DIRS as the run started. */
  folders: Map<string, FolderState>;
  /** package.json's `scripts.test` at the start (undefined: none). */
  testScript: string | undefined;
}

export interface GuardViolation {
  path: string;
  /** Where the agent's version was kept (project-relative); absent when it had deleted the file. */
  keptAt?: string;
  diff: string;
  /** Could not be put back: what the user has to do (the run stops). */
  unrestored?: string;
}

export function recordGuardedFiles(projectDir: string): GuardedFiles {
  const files = new Map<string, Recorded>();
  for (const path of [...guardedPaths(projectDir), ...worktreePointerPaths(projectDir)]) files.set(path, readRecorded(join(projectDir, path)));
  const folders = new Map(GUARDED_DIRS.map((dir) => [dir, folderState(join(projectDir, dir))]));
  return { projectDir, files, folders, testScript: readTestScript(projectDir) };
}

/**
 * Undoes every change to a guarded file since the run started; returns what was changed.
 * `quarantine` is the project-relative folder for the agent's versions.
 */
export function restoreGuardedFiles(guarded: GuardedFiles, quarantine: string): GuardViolation[] {
  const { projectDir } = guarded;
  const violations: GuardViolation[] = restoreGuardedFolders(guarded, quarantine);
  const blocked = violations.filter((v) => v.unrestored).map((v) => `${v.path}/`);
  const paths = new Set([...guarded.files.keys(), ...guardedPaths(projectDir)]);
  for (const path of [...paths].sort()) {
    // Below a folder that could not be put back, nothing is written (it is not the user's folder).
    if (blocked.some((dir) => path.startsWith(dir))) continue;
    const violation = attempt(path, () => restoreFile(guarded, path, quarantine));
    if (violation) violations.push(violation);
  }
  const testScript = readTestScript(projectDir);
  if (testScript !== guarded.testScript && existsSync(join(projectDir, PACKAGE_JSON))) {
    const violation = attempt(`${PACKAGE_JSON} (scripts.test)`, () => restoreTestScript(guarded, quarantine, testScript));
    if (violation) violations.push(violation);
  }
  return violations;
}

function restoreFile(guarded: GuardedFiles, path: string, quarantine: string): GuardViolation | undefined {
  const { projectDir } = guarded;
  const full = join(projectDir, path);
  if (path.startsWith(`${WORKTREES_DIR}/`) && !worktreeAdminReady(dirname(full), path)) return undefined;
  const before = guarded.files.get(path) ?? { bytes: null, mode: 0o644 };
  const now = readRecorded(full);
  if (sameBytes(before.bytes, now.bytes) && !isLink(full)) return undefined;
  const keptAt = existsOrLink(full) ? keepAgentVersion(projectDir, path, quarantine) : undefined;
  if (before.bytes !== null) {
    mkdirSync(dirname(full), { recursive: true });
    const target = writeTarget(full);
    writeFileAtomic(target, before.bytes, { mode: before.mode });
    chmodSync(target, before.mode);
  }
  return { path, ...(keptAt ? { keptAt } : {}), diff: describeChange(path, before.bytes, now.bytes) };
}

/**
 * A linked worktree's admin folder, where its pointer files are put back: a plain folder. One
 * that is gone is a worktree removed (`git worktree remove`), with nothing left to point
 * anywhere; one replaced by a link (or anything else) is not written through, and stops the run.
 */
function worktreeAdminReady(admin: string, path: string): boolean {
  const state = folderState(admin);
  if (state.kind === 'folder') return true;
  if (state.kind === 'absent') return false;
  throw new Error(`${dirname(path)} is no longer a folder`);
}

/** One restore; a failure (whatever the agent left in the way) becomes a violation that stops the run. */
function attempt(path: string, restore: () => GuardViolation | undefined): GuardViolation | undefined {
  try {
    return restore();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { path, diff: `${path} (could not be put back: ${reason})`, unrestored: `put back your version of ${path} (ralph could not: ${reason})` };
  }
}

/**
 * A guarded folder the agent replaced by a link, or whose link it changed, would lead ralph's
 * reads and writes of the files below it out of the project: the link itself is moved to the
 * quarantine (what it points to is never touched) and an empty folder made where a folder was,
 * for the files to be put back into. A link the user had when the run started stays.
 */
function restoreGuardedFolders(guarded: GuardedFiles, quarantine: string): GuardViolation[] {
  const violations: GuardViolation[] = [];
  for (const dir of GUARDED_DIRS) {
    if (violations.some((v) => v.unrestored && dir.startsWith(`${v.path}/`))) continue;
    const before = guarded.folders.get(dir) ?? { kind: 'absent' };
    const violation = attempt(dir, () => restoreFolder(guarded, dir, before, quarantine));
    if (violation) violations.push(violation);
  }
  return violations;
}

function restoreFolder(guarded: GuardedFiles, dir: string, before: FolderState, quarantine: string): GuardViolation | undefined {
  const full = join(guarded.projectDir, dir);
  const now = folderState(full);
  if (now.kind === 'link') {
    if (sameFolder(before, now)) return undefined;
    // The folder itself moved to where the link leads (`mv .git elsewhere; ln -s elsewhere .git`): it comes back.
    const moved = before.kind === 'folder' && now.real !== undefined && folderId(now.real) === before.id ? now.real : undefined;
    const keptAt = keepAgentVersion(guarded.projectDir, dir, quarantine);
    if (moved !== undefined) {
      renameSync(moved, full);
      return { path: dir, ...(keptAt ? { keptAt } : {}), diff: `${dir} (a link to ${now.target}, where the folder had been moved: moved back)` };
    }
    if (before.kind === 'folder' || before.kind === 'link') mkdirSync(full);
    const was =
      before.kind === 'link' ? `a link to ${before.target}` : before.kind === 'folder' ? 'a folder' : before.kind === 'absent' ? 'absent' : 'no folder';
    return { path: dir, ...(keptAt ? { keptAt } : {}), diff: `${dir} (a link to ${now.target}, was ${was})` };
  }
  if (before.kind !== 'folder' || (now.kind === 'folder' && now.id === before.id)) return undefined;
  // The folder was moved away (a gitfile planted in its place, or nothing): the one the run
  // started with is looked for where it could have gone, and moved back.
  const what = now.kind === 'folder' ? 'replaced by another folder' : now.kind === 'absent' ? 'moved away' : 'replaced by a file';
  const moved = findMovedFolder(full, before.id);
  if (moved === undefined && dir !== '.git' && now.kind === 'absent') return undefined; // deleted: the files below are put back
  if (moved === undefined && dir !== '.git' && now.kind === 'other') {
    const keptAt = keepAgentVersion(guarded.projectDir, dir, quarantine);
    mkdirSync(full);
    return { path: dir, ...(keptAt ? { keptAt } : {}), diff: `${dir} (${what})` };
  }
  if (moved === undefined) {
    return {
      path: dir,
      diff: `${dir} (${what}; the folder the run started with was not found)`,
      unrestored: `${dir} was ${what}; move your repository back to ${dir} (or restore it from a clone), then run ralph again`,
    };
  }
  const keptAt = now.kind === 'absent' ? undefined : keepAgentVersion(guarded.projectDir, dir, quarantine);
  renameSync(moved, full);
  return { path: dir, ...(keptAt ? { keptAt } : {}), diff: `${dir} (${what}: moved back from ${moved.slice(guarded.projectDir.length + 1)})` };
}

/**
 * Where a moved folder went: the place a gitfile now at its path names, or a sibling of it (a
 * rename within its parent folder). The folder is known by its device and inode.
 */
function findMovedFolder(full: string, id: string): string | undefined {
  const candidates: string[] = [];
  try {
    const text = readFileSync(full, 'utf8');
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
    if (named) candidates.push(resolve(dirname(full), named));
  } catch {
    // not a readable file
  }
  try {
    for (const name of readdirSync(dirname(full))) candidates.push(join(dirname(full), name));
  } catch {
    // no parent to look in
  }
  return candidates.find((path) => path !== full && folderId(path) === id);
}

function folderId(path: string): string | undefined {
  try {
    const st = lstatSync(path);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}

function folderState(full: string): FolderState {
  try {
    const st = lstatSync(full);
    if (st.isDirectory()) return { kind: 'folder', id: `${st.dev}:${st.ino}` };
    if (!st.isSymbolicLink()) return { kind: 'other' };
    let real: string | undefined;
    try {
      real = realpathSync(full);
    } catch {
      real = undefined; // dangling
    }
    return { kind: 'link', target: readlinkSync(full), real };
  } catch {
    return { kind: 'absent' };
  }
}

/** The same link to the same place (what it names, and where that resolves). */
function sameFolder(before: FolderState, now: FolderState & { kind: 'link' }): boolean {
  return before.kind === 'link' && before.target === now.target && before.real === now.real;
}

/**
 * Where a guarded file's bytes are written back: through a folder link only when it is the user's
 * own (restoreGuardedFolders has moved any other aside), at the place it resolves to, since
 * ralph's atomic write refuses to go through a link.
 */
function writeTarget(full: string): string {
  const dir = dirname(full);
  return isLink(dir) ? join(realpathSync(dir), basename(full)) : full;
}

function restoreTestScript(guarded: GuardedFiles, quarantine: string, changed: string | undefined): GuardViolation {
  const full = join(guarded.projectDir, PACKAGE_JSON);
  const text = readFileSync(full, 'utf8');
  let keptAt: string | undefined = join(quarantine, PACKAGE_JSON);
  if (quarantineDirReady(join(guarded.projectDir, dirname(keptAt)))) writeFileAtomic(join(guarded.projectDir, keptAt), text);
  else keptAt = undefined;
  const pkg = JSON.parse(text) as { scripts?: Record<string, string> };
  const scripts = { ...(pkg.scripts ?? {}) };
  if (guarded.testScript === undefined) delete scripts.test;
  else scripts.test = guarded.testScript;
  writeFileAtomic(full, `${JSON.stringify({ ...pkg, scripts }, null, 2)}\n`);
  return { path: `${PACKAGE_JSON} (scripts.test)`, ...(keptAt ? { keptAt } : {}), diff: `- ${guarded.testScript ?? '(none)'}\n+ ${changed ?? '(none)'}` };
}

/**
 * Moves the agent's version of `path` into the quarantine folder; returns where (project-relative).
 * The folder is under .ralph/, which the agent can write: where it planted a link on the way
 * there, its version is deleted instead of moved through the link (undefined).
 */
function keepAgentVersion(projectDir: string, path: string, quarantine: string): string | undefined {
  const keptAt = join(quarantine, path);
  if (quarantineDirReady(dirname(join(projectDir, keptAt)))) {
    renameSync(join(projectDir, path), join(projectDir, keptAt));
    return keptAt;
  }
  rmSync(join(projectDir, path), { recursive: true, force: true });
  return undefined;
}

/** Makes `dir` (under .ralph/) unless a link stands on the way there: false then, nothing made through it. */
function quarantineDirReady(dir: string): boolean {
  try {
    assertNoLinkedDirectory(dir);
    mkdirSync(dir, { recursive: true });
    assertNoLinkedDirectory(dir);
    return true;
  } catch {
    return false;
  }
}

function readRecorded(full: string): Recorded {
  try {
    const st = lstatSync(full);
    if (!st.isFile()) return { bytes: st.isSymbolicLink() ? Buffer.from(`symlink`) : null, mode: 0o644 };
    return { bytes: readFileSync(full), mode: st.mode & 0o777 };
  } catch {
    return { bytes: null, mode: 0o644 };
  }
}

function readTestScript(projectDir: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(projectDir, PACKAGE_JSON), 'utf8')) as { scripts?: Record<string, unknown> };
    const test = pkg.scripts?.test;
    return typeof test === 'string' ? test : undefined;
  } catch {
    return undefined;
  }
}

function isLink(full: string): boolean {
  try {
    return lstatSync(full).isSymbolicLink();
  } catch {
    return false;
  }
}

function existsOrLink(full: string): boolean {
  return existsSync(full) || isLink(full);
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/** The lines that differ, `-` before and `+` after (at most 20 of each). */
function describeChange(path: string, before: Buffer | null, after: Buffer | null): string {
  const lines = (b: Buffer | null) => (b === null ? [] : b.toString('utf8').split('\n'));
  const old = lines(before);
  const now = lines(after);
  const removed = old
    .filter((l) => !now.includes(l))
    .slice(0, 20)
    .map((l) => `- ${l}`);
  const added = now
    .filter((l) => !old.includes(l))
    .slice(0, 20)
    .map((l) => `+ ${l}`);
  const header = before === null ? `${path} (created)` : after === null ? `${path} (deleted)` : path;
  return [header, ...removed, ...added].join('\n');
}
