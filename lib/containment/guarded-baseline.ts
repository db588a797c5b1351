// The guarded files as a run found them (guarded-files.ts), kept beside its ledger until the run
// ends. After each call the run undoes what the agent changed in them; a run that dies first
// (`kill -9`, the agent killing its parent, a crash, a reboot) undoes nothing, and the next run
// would record the agent's `.ralphrc` — its budgets, its test command, its plan file — as the
// user's. So the next start, before it reads any of them, puts back what the dead run started
// with, the other version kept in `.ralph/quarantine/` and named in a warning, as after a call.
// The state folder is outside the project, never mounted into a sandbox. A run that ends, however
// it ends, removes its baseline: between runs the user edits these files freely.

import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative } from 'node:path';
import { RalphError } from '../errors.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { ledgerPath } from '../state/ledger-path.js';
import { runningRalph } from '../state/lock.js';
import { ralphPaths } from '../state/paths.js';
import { formatFileStamp } from '../state/timestamps.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import { GUARDED_DIRS } from './guarded-paths.js';
import { restoreGuardedFiles, type FolderState, type GuardedFiles, type GuardViolation, type Recorded } from './guarded-files.js';

const BASELINE_FILE = 'guarded-files.json';

interface BaselineFile {
  files: Array<[string, { bytes: string | null; mode: number }]>;
  folders: Array<[string, FolderState]>;
  testScript: string | null;
}

/** Where the baseline of the project whose ledger is `ledgerFile` is kept. */
export function guardedBaselinePath(ledgerFile: string): string {
  return join(dirname(ledgerFile), BASELINE_FILE);
}

/**
 * Keeps what the run found, owner-only, for a start after its death. A state folder that cannot
 * be written costs this protection, not the run: said in a warning.
 */
export function keepGuardedBaseline(path: string, guarded: GuardedFiles, logger: Logger): void {
  try {
    saveGuardedBaseline(path, guarded);
  } catch (error) {
    logger.warn(
      `Could not keep the guarded files' record at ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}): if this run is killed during a call, check .ralphrc and the other guarded files before the next`,
    );
  }
}

function saveGuardedBaseline(path: string, guarded: GuardedFiles): void {
  const file: BaselineFile = {
    files: [...guarded.files].map(([name, r]) => [name, { bytes: r.bytes === null ? null : r.bytes.toString('base64'), mode: r.mode }]),
    folders: [...guarded.folders],
    testScript: guarded.testScript ?? null,
  };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeJsonAtomic(path, file, { mode: 0o600 });
}

/** Removes the record (a file; anything else found at its name is left alone). */
export function removeGuardedBaseline(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // not a file: keepGuardedBaseline says so at the next run's start
  }
}

/**
 * The record as saved, or undefined when it is not one ralph wrote: every name a plain path inside
 * the project, every folder one of the guarded ones (nothing is ever written where it names else).
 */
function readBaseline(path: string, projectDir: string): GuardedFiles | undefined {
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as BaselineFile;
    if (!Array.isArray(file.files) || !Array.isArray(file.folders)) return undefined;
    const files = new Map<string, Recorded>();
    for (const [name, r] of file.files) {
      if (!isInsideName(name) || !Number.isInteger(r.mode) || r.mode < 0 || r.mode > 0o7777) return undefined;
      if (r.bytes !== null && typeof r.bytes !== 'string') return undefined;
      files.set(name, { bytes: r.bytes === null ? null : Buffer.from(r.bytes, 'base64'), mode: r.mode });
    }
    if (!file.folders.every(([dir]) => GUARDED_DIRS.includes(dir))) return undefined;
    return { projectDir, files, folders: new Map(file.folders), testScript: typeof file.testScript === 'string' ? file.testScript : undefined };
  } catch {
    return undefined;
  }
}

function isInsideName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && !isAbsolute(name) && normalize(name) === name && !name.split('/').includes('..');
}

export interface DeadRunOptions {
  projectDir: string;
  env: Readonly<Record<string, string | undefined>>;
  homeDir: string;
  logger: Logger;
  clock: Clock;
}

/**
 * At a start, before the configuration is read: the guarded files put back as the last run of
 * this project found them, when that run died without undoing its agent's changes. Nothing is
 * done while another ralph runs here (the baseline is its own). Returns what was put back.
 */
export function undoChangesOfDeadRun(options: DeadRunOptions): GuardViolation[] {
  const path = guardedBaselinePath(ledgerPath(options.projectDir, options.env, options.homeDir));
  if (!existsSync(path)) return [];
  const paths = ralphPaths(options.projectDir);
  if (runningRalph(paths)) return [];
  const guarded = readBaseline(path, options.projectDir);
  if (!guarded) {
    removeGuardedBaseline(path);
    return [];
  }
  const quarantine = join(relative(options.projectDir, paths.ralphDir), 'quarantine', `${formatFileStamp(options.clock.now())}-after-a-dead-run`);
  const violations = restoreGuardedFiles(guarded, quarantine);
  for (const v of violations) {
    const kept = v.unrestored ? `; could not put it back: ${v.unrestored}` : v.keptAt ? `; the version found is kept in ${v.keptAt}` : '';
    options.logger.warn(
      `The last run of this project ended without undoing a change to ${v.path} (it was killed or crashed during or after an agent call): put back as that run found it${kept}. If the change was yours, made since, make it again`,
    );
  }
  const unrestored = violations.filter((v) => v.unrestored);
  if (unrestored.length > 0) {
    throw new RalphError(
      'guarded_not_restored',
      `ralph could not put back ${unrestored.map((v) => v.path).join(', ')}, changed during the last run of this project`,
      {
        hint: unrestored.map((v) => v.unrestored).join('; '),
      },
    );
  }
  removeGuardedBaseline(path);
  return violations;
}
