// Guarded files: what configures the programs ralph or the agent CLI will run — `.ralphrc`,
// `.git/config`, `.git/info/attributes`, `.git/hooks/`, the agent CLIs' project settings and
// package.json's test script. Their bytes are recorded when the run starts; after each agent
// call a change is undone (the agent's version moved to `.ralph/quarantine/<time>/…` for the
// user to read) and reported. Between runs the user edits them freely: the next run records
// them afresh. The rule: ralph runs nothing the agent could have changed since the run started.

import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { guardedPaths } from '../project/guarded-paths.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { assertNoLinkedDirectory } from '../state/no-follow.js';

const PACKAGE_JSON = 'package.json';

interface Recorded {
  bytes: Buffer | null;
  mode: number;
}

export interface GuardedFiles {
  projectDir: string;
  files: Map<string, Recorded>;
  /** package.json's `scripts.test` at the start (undefined: none). */
  testScript: string | undefined;
}

export interface GuardViolation {
  path: string;
  /** Where the agent's version was kept (project-relative); absent when it had deleted the file. */
  keptAt?: string;
  diff: string;
}

export function recordGuardedFiles(projectDir: string): GuardedFiles {
  const files = new Map<string, Recorded>();
  for (const path of guardedPaths(projectDir)) files.set(path, readRecorded(join(projectDir, path)));
  return { projectDir, files, testScript: readTestScript(projectDir) };
}

/**
 * Undoes every change to a guarded file since the run started; returns what was changed.
 * `quarantine` is the project-relative folder for the agent's versions.
 */
export function restoreGuardedFiles(guarded: GuardedFiles, quarantine: string): GuardViolation[] {
  const { projectDir } = guarded;
  const violations: GuardViolation[] = [];
  const paths = new Set([...guarded.files.keys(), ...guardedPaths(projectDir)]);
  for (const path of [...paths].sort()) {
    const full = join(projectDir, path);
    const before = guarded.files.get(path) ?? { bytes: null, mode: 0o644 };
    const now = readRecorded(full);
    if (sameBytes(before.bytes, now.bytes) && !isLink(full)) continue;
    const keptAt = existsOrLink(full) ? keepAgentVersion(projectDir, path, quarantine) : undefined;
    if (before.bytes !== null) {
      mkdirSync(dirname(full), { recursive: true });
      writeFileAtomic(full, before.bytes, { mode: before.mode });
      chmodSync(full, before.mode);
    }
    violations.push({ path, ...(keptAt ? { keptAt } : {}), diff: describeChange(path, before.bytes, now.bytes) });
  }
  const testScript = readTestScript(projectDir);
  if (testScript !== guarded.testScript && existsSync(join(projectDir, PACKAGE_JSON))) {
    violations.push(restoreTestScript(guarded, quarantine, testScript));
  }
  return violations;
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
  const removed = old.filter((l) => !now.includes(l)).slice(0, 20).map((l) => `- ${l}`);
  const added = now.filter((l) => !old.includes(l)).slice(0, 20).map((l) => `+ ${l}`);
  const header = before === null ? `${path} (created)` : after === null ? `${path} (deleted)` : path;
  return [header, ...removed, ...added].join('\n');
}
