// One entry point for the task sources ralph-enable and ralph-enable-ci offer: beads, GitHub,
// a PRD file, or none. Each returns `- [ ] …` lines or a failure value.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ProcessRunner } from '../platform/process.js';
import { fetchBeadsTasks } from './beads-tasks.js';
import { fetchGitHubTasks } from './github-tasks.js';
import { extractPrdTasks, PRD_TASK_FORMATS } from './prd-tasks.js';
import { taskSourceFailure, type TaskSourceResult } from './task-source-result.js';

export type TaskSourceName = 'beads' | 'github' | 'prd' | 'none';

export interface ImportTasksOptions {
  source: TaskSourceName;
  projectDir: string;
  /** PRD path, relative to projectDir or absolute. */
  prdFile?: string;
  githubLabel?: string;
  /** Maximum tasks for beads and GitHub; 0 = all. */
  limit: number;
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
}

export async function importTasks(options: ImportTasksOptions): Promise<TaskSourceResult> {
  const cli = { runner: options.runner, cwd: options.projectDir, env: options.env };
  switch (options.source) {
    case 'none':
      return { ok: true, tasks: [] };
    case 'beads':
      return fetchBeadsTasks({ ...cli, limit: options.limit });
    case 'github':
      return fetchGitHubTasks({ ...cli, limit: options.limit, label: options.githubLabel });
    case 'prd':
      return importPrdTasks(options.projectDir, options.prdFile);
  }
}

function importPrdTasks(projectDir: string, prdFile: string | undefined): TaskSourceResult {
  if (!prdFile) return taskSourceFailure('file-not-found', 'PRD file not found: no file given', 'pass --prd <file>');
  let text: string;
  try {
    text = readFileSync(resolve(projectDir, prdFile), 'utf8');
  } catch {
    return taskSourceFailure('file-not-found', `PRD file not found: ${prdFile}`);
  }
  const tasks = extractPrdTasks(text);
  if (tasks.length > 0) return { ok: true, tasks };
  return {
    ok: true,
    tasks,
    note: `${prdFile} has no task ralph can import: ${PRD_TASK_FORMATS}; fix_plan.md starts with no task: write one "- [ ] task" line per task under its ## Tasks heading`,
  };
}
