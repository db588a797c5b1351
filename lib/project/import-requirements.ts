// ralph-import's file flow (reference §10.2): create the project with ralph-setup's logic, keep
// a copy of the source document in it, and let Claude Code write PROMPT.md, fix_plan.md and
// specs/requirements.md from the document.

import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { OneShotAgent } from '../agents/call-agent.js';
import type { ProcessRunner } from '../platform/process.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { convertRequirements } from './convert-requirements.js';
import type { HasCommand } from '../platform/find-executable.js';
import type { InitialCommitResult } from './initial-commit.js';
import { setupProject } from './setup-project.js';

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
}

export type ImportRequirementsResult =
  | { ok: true; projectDir: string; git: InitialCommitResult; summary: string; missing: string[]; unchanged: string[] }
  | { ok: false; projectDir: string; git: InitialCommitResult; message: string };

export async function importRequirements(options: ImportRequirementsOptions): Promise<ImportRequirementsResult> {
  const setup = await setupProject({
    parentDir: options.parentDir,
    name: options.projectName,
    force: false,
    runner: options.runner,
    env: options.env,
    hasCommand: options.hasCommand,
  });
  const { projectDir, git } = setup;
  const copy = join(projectDir, options.documentFileName);
  if (!isSameFile(copy, options.sourcePath)) writeFileAtomic(copy, options.document);
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
  if (!converted.ok) return { ok: false, projectDir, git, message: converted.message };
  for (const [name, content] of Object.entries(options.extraSpecs ?? {})) {
    writeFileAtomic(join(projectDir, '.ralph', 'specs', name), content);
  }
  return { ok: true, projectDir, git, summary: converted.summary, missing: converted.missing, unchanged: converted.unchanged };
}

function isSameFile(a: string, b: string | undefined): boolean {
  if (b === undefined || !existsSync(a) || !existsSync(b)) return false;
  return realpathSync(a) === realpathSync(resolve(b));
}
