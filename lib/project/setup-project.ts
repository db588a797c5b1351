// ralph-setup: a new project directory with src/, the .ralph/ tree, the
// control files, README.md, .gitignore, .ralphrc and a first commit. Unlike the Bash tool an
// existing README.md, .gitignore or .ralphrc is kept unless force.

import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { ProcessRunner } from '../platform/process.js';
import { detectProjectContext } from './detect-project.js';
import { enableProject, type ProjectFileOutcome } from './enable-project.js';
import type { HasCommand } from '../platform/find-executable.js';
import { createFileBackup } from './file-backup.js';
import { createInitialCommit, type InitialCommitResult } from './initial-commit.js';
import type { TemplateSource } from './templates.js';
import { writeProjectFile } from './write-project-file.js';
import { moveAsideStateOfGoneProject } from '../state/gone-project-state.js';

export interface SetupProjectOptions {
  /** Directory the name is resolved against (the user's cwd). */
  parentDir: string;
  name: string;
  force: boolean;
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
  /** Where the user's state directory defaults to (the ledger's; lib/state/ledger-path.ts); the user's home when absent. */
  homeDir?: string;
  hasCommand: HasCommand;
  templates?: TemplateSource;
  now?: Date;
}

export interface SetupProjectResult {
  projectDir: string;
  projectName: string;
  files: Record<string, ProjectFileOutcome>;
  /** Where the files --force replaced were copied, when any were. */
  backup?: { dir: string; files: string[] };
  git: InitialCommitResult;
  /** The run state of a deleted project that had been at this path, moved aside (lib/state/gone-project-state.ts). */
  goneProjectState?: { from: string; to: string };
}

export async function setupProject(options: SetupProjectOptions): Promise<SetupProjectResult> {
  const projectDir = resolve(options.parentDir, options.name);
  const projectName = basename(projectDir);
  // Before the folder is made: a state folder that cannot be moved stops the setup with nothing written.
  const goneProjectState = existsSync(projectDir)
    ? undefined
    : moveAsideStateOfGoneProject(projectDir, options.env, options.homeDir ?? homedir(), options.now ?? new Date());
  mkdirSync(join(projectDir, 'src'), { recursive: true });
  const detected = detectProjectContext(projectDir, { hasCommand: options.hasCommand });
  const context = { ...detected, name: projectName, type: detected.type === 'unknown' ? 'generic' : detected.type };
  const backup = createFileBackup(projectDir, new Date());
  const enabled = enableProject({
    projectDir,
    context,
    tasks: [],
    force: options.force,
    generatedBy: 'ralph-setup',
    templates: options.templates,
    stopIfComplete: false,
    backup,
  });
  const files: Record<string, ProjectFileOutcome> = enabled.kind === 'enabled' ? { ...enabled.files } : {};
  files['README.md'] = writeProjectFile(join(projectDir, 'README.md'), `# ${projectName}\n`, { force: options.force, backup });
  const written = [
    ...Object.entries(files)
      .filter(([, outcome]) => outcome !== 'skipped')
      .map(([file]) => file),
    ...(enabled.kind === 'enabled' ? enabled.skeletonCreated.map((file) => `.ralph/${file}`) : []),
  ];
  const git = await createInitialCommit({ projectDir, files: written, runner: options.runner, env: options.env });
  const saved = backup.saved();
  return {
    projectDir,
    projectName,
    files,
    ...(saved.length > 0 ? { backup: { dir: backup.dir, files: saved } } : {}),
    git,
    ...(goneProjectState ? { goneProjectState } : {}),
  };
}
