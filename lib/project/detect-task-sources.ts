// Which task sources a project offers (the Bash tool's detect_task_sources): beads when
// .beads/ exists, GitHub when origin is on github.com, and requirement-like Markdown files
// (prd, requirements, spec) within two levels of docs/, specs/, requirements/ and the root.

import { readdirSync, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import { hasBeadsDirectory } from '../tasks/beads-tasks.js';
import type { GitInfo } from './detect-git.js';

export interface TaskSourcesDetected {
  beads: boolean;
  github: boolean;
  /** Paths relative to the project, sorted, without duplicates. */
  prdFiles: string[];
}

const SEARCH_DIRS = ['docs', 'specs', '.', 'requirements'];
const PRD_NAME = /(prd|requirements|spec|specification)[^/]*\.md$/i;
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.ralph', 'dist', 'build', 'target', 'vendor']);

export function detectTaskSources(projectDir: string, git: GitInfo): TaskSourcesDetected {
  const found = new Set<string>();
  for (const dir of SEARCH_DIRS) collectPrdFiles(projectDir, join(projectDir, dir), 2, found);
  return { beads: hasBeadsDirectory(projectDir), github: git.isGitHub, prdFiles: [...found].sort() };
}

function collectPrdFiles(projectDir: string, dir: string, depth: number, found: Set<string>): void {
  if (depth === 0) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) collectPrdFiles(projectDir, path, depth - 1, found);
    } else if (entry.isFile() && PRD_NAME.test(entry.name)) {
      found.add(relative(projectDir, path));
    }
  }
}
