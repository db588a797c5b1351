// tmpProject(tree): a throwaway project directory with the given files, optionally a real git
// repository with one commit, removed by cleanup(); a git project of a tree made before is a copy
// of that one (project-templates.ts). copyProject(template): another one like it, copied file by
// file instead of made again by git (a test file that starts many alike).

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { copyTemplate, keepTemplate, keptTemplate, templateKey } from './project-templates.js';

export interface TmpProject {
  dir: string;
  path(relative: string): string;
  git(...args: string[]): string;
  cleanup(): void;
}

export interface TmpProjectOptions {
  git?: boolean;
  /** Files committed in the initial commit (default: all of `tree`). */
  commit?: boolean;
}

export const GIT_TEST_ENV = {
  GIT_AUTHOR_NAME: 'Ralph Test',
  GIT_AUTHOR_EMAIL: 'ralph-test@example.com',
  GIT_COMMITTER_NAME: 'Ralph Test',
  GIT_COMMITTER_EMAIL: 'ralph-test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** The minimal files a Ralph project needs to pass the integrity check. */
export function ralphProjectTree(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    '.ralph/PROMPT.md': '# Task\nWork through fix_plan.md.\n',
    '.ralph/fix_plan.md': '# Fix Plan\n- [ ] first\n',
    '.ralph/AGENT.md': '# Agent\n',
    '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\n',
    '.gitignore':
      '.ralph/logs/\n.ralph/.*\n.ralph/status.json\n.ralph/progress.json\n.ralph/live.log\n.ralph/sessions/\n.ralph/parallel.json\n.ralph/queue-parallel.json\n.ralph/worktrees/\n.ralph/fleet/\n',
    ...overrides,
  };
}

// Every project made in this test file and not yet cleaned up, and every folder its tests share:
// removed when the file ends (tests/helpers/state-home.ts), so a test that failed before its own
// cleanup leaves nothing.
const notCleaned = new Set<string>();

/** Has a folder of this test file's (a cache its tests share) removed when the file ends. */
export function removeWhenTheFileEnds(dir: string): void {
  notCleaned.add(dir);
}

/** Removes the projects of this test file that no cleanup() removed. */
export function removeLeftoverProjects(): void {
  for (const dir of notCleaned) rmSync(dir, { recursive: true, force: true });
  notCleaned.clear();
}

export function tmpProject(tree: Record<string, string> = {}, options: TmpProjectOptions = {}): TmpProject {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-proj-'));
  notCleaned.add(dir);
  const project = projectAt(dir);
  if (!options.git) {
    writeTree(dir, tree);
    return project;
  }
  const commit = options.commit !== false;
  const key = templateKey(tree, commit);
  const template = keptTemplate(key, removeWhenTheFileEnds);
  if (template !== undefined) {
    copyTemplate(template, dir);
    return project;
  }
  writeTree(dir, tree);
  project.git('init', '-q', '-b', 'main');
  if (commit) {
    project.git('add', '-A');
    // Without the background `git maintenance run --auto` a commit starts: a process per project.
    project.git('-c', 'maintenance.auto=false', 'commit', '-q', '--allow-empty', '-m', 'initial');
  }
  keepTemplate(key, dir, removeWhenTheFileEnds);
  return project;
}

function writeTree(dir: string, tree: Record<string, string>): void {
  for (const [relative, content] of Object.entries(tree)) {
    const file = join(dir, relative);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/**
 * A new project holding a copy of the template's files, its git repository included (the same
 * commits, branches and config): cheaper than making the same repository again with git when a
 * test file starts many alike.
 */
export function copyProject(template: TmpProject): TmpProject {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-proj-'));
  notCleaned.add(dir);
  cpSync(template.dir, dir, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  return projectAt(dir);
}

function projectAt(dir: string): TmpProject {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  return {
    dir,
    path: (relative) => join(dir, relative),
    git,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      notCleaned.delete(dir);
    },
  };
}
