// Turns a directory into a Ralph project (the Bash tool's enable_ralph_in_directory): the
// .ralph/ skeleton, PROMPT.md, AGENT.md, fix_plan.md, the root .gitignore and .ralphrc.
// Existing files are kept unless force, and force first copies each file it replaces to a
// .ralph_backup_<stamp>/; files the user added to .ralph/ are never removed; an existing
// .gitignore is always extended with the Ralph entries it lacks, never replaced.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import { ralphPaths } from '../state/paths.js';
import type { ProjectContext } from './project-context.js';
import { checkExistingRalph } from './ralph-state.js';
import { mergeGitignore } from './merge-gitignore.js';
import { renderAgentMd, renderFixPlan, renderGitignore, renderPromptMd, renderRalphrc } from './render-control-files.js';
import { createFileBackup, type FileBackup } from './file-backup.js';
import { diskTemplates, ralphSkeletonDir, type TemplateSource } from './templates.js';
import { copySkeleton, writeProjectFile, type FileWriteOutcome } from './write-project-file.js';

export interface EnableProjectOptions {
  projectDir: string;
  context: ProjectContext;
  /** `- [ ] …` lines for fix_plan.md; empty = default starter items. */
  tasks: readonly string[];
  force: boolean;
  generatedBy: string;
  taskSources?: readonly string[];
  githubTaskLabel?: string;
  maxCallsPerHour?: number;
  templates?: TemplateSource;
  skeletonDir?: string;
  /** ralph-setup fills in missing files even in a complete project; enable stops there. */
  stopIfComplete?: boolean;
  /** Where replaced files are copied (default: a new .ralph_backup_<now>/). */
  backup?: FileBackup;
}

export type ProjectFileOutcome = FileWriteOutcome | 'merged';

export type EnableProjectResult =
  | { kind: 'already-enabled' }
  | {
      kind: 'enabled';
      /** Outcome per generated file, keyed by its path relative to the project. */
      files: Record<ManagedFile, ProjectFileOutcome>;
      /** Skeleton files added under .ralph/. */
      skeletonCreated: string[];
      /** Where the files force replaced were copied, when any were. */
      backup?: { dir: string; files: string[] };
    };

export const MANAGED_FILES = ['.ralph/PROMPT.md', '.ralph/fix_plan.md', '.ralph/AGENT.md', '.ralphrc', '.gitignore'] as const;
export type ManagedFile = (typeof MANAGED_FILES)[number];

/** The four files ralph-enable-ci reports in `files_created` (when they exist). */
export const REPORTED_FILES = ['.ralph/PROMPT.md', '.ralph/fix_plan.md', '.ralph/AGENT.md', '.ralphrc'] as const;

export function enableProject(options: EnableProjectOptions): EnableProjectResult {
  const { projectDir, context, force } = options;
  const stopIfComplete = options.stopIfComplete ?? true;
  if (stopIfComplete && !force && checkExistingRalph(projectDir).state === 'complete') return { kind: 'already-enabled' };
  const templates = options.templates ?? diskTemplates;
  const paths = ralphPaths(projectDir);
  const backup = options.backup ?? createFileBackup(projectDir, new Date());
  const write = { force, backup };
  const skeletonCreated = copySkeleton(options.skeletonDir ?? ralphSkeletonDir(), paths.ralphDir, { PROJECT_NAME: context.name });
  const files: Record<ManagedFile, ProjectFileOutcome> = {
    '.ralph/PROMPT.md': writeProjectFile(paths.prompt, renderPromptMd(context, templates), write),
    '.ralph/fix_plan.md': writeProjectFile(paths.fixPlan, renderFixPlan(options.tasks, templates), write),
    '.ralph/AGENT.md': writeProjectFile(paths.agent, renderAgentMd(context, templates), write),
    '.ralphrc': writeProjectFile(
      paths.ralphrc,
      renderRalphrc(
        {
          context,
          generatedBy: options.generatedBy,
          maxCallsPerHour: options.maxCallsPerHour,
          taskSources: options.taskSources,
          githubTaskLabel: options.githubTaskLabel,
        },
        templates,
      ),
      { ...write, mode: 0o600 },
    ),
    '.gitignore': writeGitignore(join(projectDir, '.gitignore'), renderGitignore(templates)),
  };
  const saved = backup.saved();
  return { kind: 'enabled', files, skeletonCreated, ...(saved.length > 0 ? { backup: { dir: backup.dir, files: saved } } : {}) };
}

/** Creates .gitignore, or adds the Ralph entries an existing one lacks (the user's lines stay). */
export function writeGitignore(path: string, template: string): ProjectFileOutcome {
  if (!existsSync(path)) return writeProjectFile(path, template);
  const existing = readFileSync(path, 'utf8');
  const merged = mergeGitignore(existing, template);
  if (merged === existing) return 'unchanged';
  writeFileAtomic(path, merged);
  return 'merged';
}
