// ralph-import's file flow: create the project with ralph-setup's logic, keep
// a copy of the source document in it, and let Claude Code write PROMPT.md, fix_plan.md and
// specs/requirements.md from the document. Over an existing project it refuses unless force,
// and with force keeps a copy of every file it replaces (as ralph-enable --force does).

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RalphError } from '../errors.js';
import type { OneShotAgent } from '../agent-run/one-off-call.js';
import type { ProcessRunner } from '../platform/process.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { CONVERSION_OUTPUTS, convertRequirements } from './convert-requirements.js';
import { createFileBackup } from './file-backup.js';
import type { HasCommand } from '../platform/find-executable.js';
import type { InitialCommitResult } from './initial-commit.js';
import { setupProject } from './setup-project.js';
import { giveRootOwnedTo } from '../sandbox/agent-user.js';

export interface ImportRequirementsOptions {
  /** Where the project directory is created. */
  parentDir: string;
  projectName: string;
  /** The document text (already read and checked). */
  document: string;
  /** File name the document is saved under in the project root. */
  documentFileName: string;
  /** The original file, when there is one; not rewritten if it already is the saved copy. */
  sourcePath?: string;
  /** Extra files to write under .ralph/specs/ after a successful conversion. */
  extraSpecs?: Record<string, string>;
  agent: OneShotAgent;
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
  hasCommand: HasCommand;
  timeoutMs: number;
  now: () => number;
  /** ralph is root and the agent runs as this user: the project, as ralph wrote it, is given to them before the call. */
  handTo?: { uid: number; gid: number };
  /** Replace the files of an existing project, keeping a backup; without it such an import is refused. */
  force?: boolean;
}

/** Where the files a --force import replaced were copied. */
export interface ImportBackup {
  dir: string;
  files: string[];
}

export type ImportRequirementsResult =
  | ({ ok: true; projectDir: string; git: InitialCommitResult; summary: string; missing: string[]; unchanged: string[] } & ImportSideEffects)
  | ({ ok: false; projectDir: string; git: InitialCommitResult; message: string } & ImportSideEffects);

/** What the import did beside the project's files: a backup of what it replaced, the run state of a deleted project at its path moved aside. */
interface ImportSideEffects {
  backup?: ImportBackup;
  goneProjectState?: { from: string; to: string };
}

export async function importRequirements(options: ImportRequirementsOptions): Promise<ImportRequirementsResult> {
  const replaced = checkReplacedFiles(options);
  const backup = saveReplacedFiles(resolve(options.parentDir, options.projectName), replaced, new Date(options.now()));
  const setup = await setupProject({
    parentDir: options.parentDir,
    name: options.projectName,
    force: false,
    runner: options.runner,
    env: options.env,
    hasCommand: options.hasCommand,
  });
  const { projectDir, git } = setup;
  const sideEffects = { ...backup, ...(setup.goneProjectState ? { goneProjectState: setup.goneProjectState } : {}) };
  const copy = join(projectDir, options.documentFileName);
  if (!isSameFile(copy, options.sourcePath)) writeFileAtomic(copy, options.document);
  if (options.handTo) giveRootOwnedTo(projectDir, options.handTo);
  const converted = await convertRequirements({
    projectDir,
    sourceName: options.documentFileName,
    document: options.document,
    agent: options.agent,
    runner: options.runner,
    env: options.env,
    timeoutMs: options.timeoutMs,
    now: options.now,
  });
  if (!converted.ok) return { ok: false, projectDir, git, message: converted.message, ...sideEffects };
  for (const [name, content] of Object.entries(options.extraSpecs ?? {})) {
    writeFileAtomic(join(projectDir, '.ralph', 'specs', name), content);
  }
  if (options.handTo) giveRootOwnedTo(projectDir, options.handTo);
  return { ok: true, projectDir, git, summary: converted.summary, missing: converted.missing, unchanged: converted.unchanged, ...sideEffects };
}

/** The files the import would replace; throws unless force when there are any. */
export function checkReplacedFiles(options: ReplaceCheckOptions): string[] {
  const replaced = findReplacedFiles(options);
  if (replaced.length > 0 && options.force !== true) {
    const target = resolve(options.parentDir, options.projectName);
    throw new RalphError('import_would_replace', `${target} already holds a Ralph project: importing would replace ${replaced.join(', ')}`, {
      hint: 'run ralph-import again with --force to replace them (each replaced file is first copied to .ralph_backup_<time>/), or give a new project name',
    });
  }
  return replaced;
}

type ReplaceCheckOptions = Pick<
  ImportRequirementsOptions,
  'parentDir' | 'projectName' | 'document' | 'documentFileName' | 'sourcePath' | 'extraSpecs' | 'force'
>;

/** Files of an existing project the import would write over: the three outputs, the extra specs, and a different document copy. */
export function findReplacedFiles(options: ReplaceCheckOptions): string[] {
  const projectDir = resolve(options.parentDir, options.projectName);
  const outputs = [...CONVERSION_OUTPUTS, ...Object.keys(options.extraSpecs ?? {}).map((name) => `.ralph/specs/${name}`)];
  const replaced = outputs.filter((file) => existsSync(join(projectDir, file)));
  const copy = join(projectDir, options.documentFileName);
  if (existsSync(copy) && !isSameFile(copy, options.sourcePath) && readFileSync(copy, 'utf8') !== options.document) replaced.push(options.documentFileName);
  return replaced;
}

function saveReplacedFiles(projectDir: string, files: readonly string[], now: Date): { backup: ImportBackup } | Record<string, never> {
  if (files.length === 0) return {};
  const backup = createFileBackup(projectDir, now);
  for (const file of files) backup.save(join(projectDir, file));
  return { backup: { dir: backup.dir, files: backup.saved() } };
}

function isSameFile(a: string, b: string | undefined): boolean {
  if (b === undefined || !existsSync(a) || !existsSync(b)) return false;
  return realpathSync(a) === realpathSync(resolve(b));
}
