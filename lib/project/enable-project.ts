// Turns a directory into a Ralph project (reference §9.1 enable_ralph_in_directory): the
// .ralph/ skeleton, PROMPT.md, AGENT.md, fix_plan.md, the root .gitignore and .ralphrc.
// Existing files are kept unless force; files the user added to .ralph/ are never removed;
// with force an existing .gitignore is extended with Ralph's entries rather than replaced.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import { ralphPaths } from '../state/paths.js';
import type { ProjectContext } from './project-context.js';
import { checkExistingRalph } from './ralph-state.js';
import { mergeGitignore } from './merge-gitignore.js';
import {
  renderAgentMd,
  renderFixPlan,
  renderGitignore,
  renderPromptMd,
  renderRalphrc,
} from './render-control-files.js';
import { diskTemplates, ralphSkeletonDir, type TemplateSource } from './templates.js';
import { copySkeleton, writeProjectFile, type FileWriteOutcome } from './write-project-file.js';

export interface EnableProjectOptions {
  projectDir: string;
  context: ProjectContext;
  /** `- [ ] …` lines for fix_plan.md; empty = default starter items. */
  tasks: readonly string[];
  force: boolean;
  generatedBy: string;
  claudeCodeCmd: string;
  taskSources?: readonly string[];
  githubTaskLabel?: string;
  maxCallsPerHour?: number;
  templates?: TemplateSource;
  skeletonDir?: string;
  /** ralph-setup fills in missing files even in a complete project; enable stops there. */
  stopIfComplete?: boolean;
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
  const skeletonCreated = copySkeleton(options.skeletonDir ?? ralphSkeletonDir(), paths.ralphDir, { PROJECT_NAME: context.name });
  const files: Record<ManagedFile, ProjectFileOutcome> = {
    '.ralph/PROMPT.md': writeProjectFile(paths.prompt, renderPromptMd(context, templates), { force }),
    '.ralph/fix_plan.md': writeProjectFile(paths.fixPlan, renderFixPlan(options.tasks, templates), { force }),
    '.ralph/AGENT.md': writeProjectFile(paths.agent, renderAgentMd(context, templates), { force }),
    '.ralphrc': writeProjectFile(
      paths.ralphrc,
      renderRalphrc(
        {
          context,
          generatedBy: options.generatedBy,
          claudeCodeCmd: options.claudeCodeCmd,
          maxCallsPerHour: options.maxCallsPerHour,
          taskSources: options.taskSources,
          githubTaskLabel: options.githubTaskLabel,
        },
        templates,
      ),
      { force, mode: 0o600 },
    ),
    '.gitignore': writeGitignore(join(projectDir, '.gitignore'), renderGitignore(templates), force),
  };
  return { kind: 'enabled', files, skeletonCreated };
}

function writeGitignore(path: string, template: string, force: boolean): ProjectFileOutcome {
  if (!existsSync(path)) return writeProjectFile(path, template);
  if (!force) return 'skipped';
  const existing = readFileSync(path, 'utf8');
  const merged = mergeGitignore(existing, template);
  if (merged === existing) return 'skipped';
  writeFileAtomic(path, merged);
  return 'merged';
}
