// Sets the project up for one queue item: its spec in .ralph/specs/ (the issue as a requirements
// document, or a copy of the PRD) and fix_plan.md holding the one task for it. A plan the queue
// did not write is kept in .ralph/specs/ first (the Bash tool overwrote it). Issue text is data:
// it is only ever written to files, and the task line is one line of plain text. The agent can
// write .ralph/specs/: every file is written atomically (the rename replaces a planted symlink
// instead of writing through it), and a specs folder that resolves outside .ralph/ is refused.

import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { buildIssueDocument } from '../project/issue-document.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { forgetPlanMemory } from '../plan/plan-store.js';
import type { RalphPaths } from '../state/paths.js';
import type { QueueItem } from './queue-file.js';
import { formatFileStamp } from '../state/timestamps.js';
import { toPlainTextLine } from '../tasks/task-line.js';
import type { QueueIssue } from './queue-issues.js';

export const QUEUE_PLAN_HEADING = '# Ralph Fix Plan (queue item)';

/** Writes .ralph/specs/issue-N.md; returns its project-relative path. */
export function writeIssueSpec(paths: RalphPaths, issue: QueueIssue): string {
  const file = join(specsDir(paths), `issue-${issue.number}.md`);
  writeFileAtomic(file, buildIssueDocument({ ...issue, assignees: [], comments: [] }, false));
  return relative(paths.projectDir, file);
}

/**
 * Copies a PRD item's file to .ralph/specs/<id>-<name> (the id keeps same-named PRDs apart).
 * The path comes from queue.json, which the agent can write: it is read only when it leads to a
 * file in the project (which the agent sees anyway) or to one the user queued (`queued`, the
 * real paths ralph-queue add --prd recorded in the ledger), never to any other file of the host.
 */
export function copyPrdSpec(paths: RalphPaths, item: QueueItem, queued: readonly string[]): string {
  const path = item.path ?? '';
  const source = confinedPrdFile(paths.projectDir, path, queued);
  // The id comes from queue.json too: no `/` or `..` may take it elsewhere.
  const name = `${item.id.replace(/[^A-Za-z0-9_-]+/g, '-')}-${basename(resolve(paths.projectDir, path))}`;
  const file = join(specsDir(paths), name);
  writeFileAtomic(file, readFileSync(source));
  return relative(paths.projectDir, file);
}

/** The real path of a PRD item's file, when it may be read; an error saying why not otherwise. */
function confinedPrdFile(projectDir: string, path: string, queued: readonly string[]): string {
  // Relative to the project; a queue written by the Bash tool or an older ralph holds it absolute.
  let real: string;
  try {
    real = realpathSync(resolve(projectDir, path));
  } catch {
    throw new Error(`PRD file not found: ${path}`);
  }
  const inProject = real.startsWith(`${realpathSync(projectDir)}${sep}`);
  if (!inProject && !queued.includes(real)) {
    throw new Error(
      `the PRD path '${path}' in queue.json leads outside the project, to a file that was not queued with ralph-queue add --prd (queue it again that way if you meant it)`,
    );
  }
  // Not a FIFO or a device, which would block the queue or never end.
  if (!statSync(real).isFile()) throw new Error(`the PRD path '${path}' in queue.json is not a regular file`);
  return real;
}

/** Keeps a plan the queue did not write as .ralph/specs/fix_plan-<stamp>.md; returns where. */
export function keepPreviousPlan(paths: RalphPaths, now: number): string | undefined {
  if (!existsSync(paths.fixPlan)) return undefined;
  const text = readFileSync(paths.fixPlan, 'utf8');
  if (text.startsWith(QUEUE_PLAN_HEADING) || text.trim() === '') return undefined;
  const base = join(specsDir(paths), `fix_plan-${formatFileStamp(now)}`);
  let target = `${base}.md`;
  for (let n = 1; isTaken(target); n++) target = `${base}-${n}.md`;
  writeFileAtomic(target, text);
  return relative(paths.projectDir, target);
}

/** The project's own plan before a queue run (none: no file, an empty one, or a plan the queue wrote). */
export function readUserPlan(paths: RalphPaths): string | undefined {
  if (!existsSync(paths.fixPlan)) return undefined;
  const text = readFileSync(paths.fixPlan, 'utf8');
  return text.startsWith(QUEUE_PLAN_HEADING) || text.trim() === '' ? undefined : text;
}

/** Puts the project's own plan back in place of the last item's one-task plan; true when it did. */
export function restoreUserPlan(paths: RalphPaths, text: string | undefined): boolean {
  if (text === undefined || !existsSync(paths.fixPlan)) return false;
  const current = readFileSync(paths.fixPlan, 'utf8');
  if (current === text || !current.startsWith(QUEUE_PLAN_HEADING)) return false;
  writeFileAtomic(paths.fixPlan, text);
  return true;
}

/** .ralph/specs/, made if missing; an error when it leads out of .ralph/ (a symlinked folder). */
function specsDir(paths: RalphPaths): string {
  mkdirSync(paths.specsDir, { recursive: true });
  const real = realpathSync(paths.specsDir);
  const home = realpathSync(paths.ralphDir);
  if (!real.startsWith(`${home}${sep}`)) {
    throw new Error(`.ralph/specs leads outside the project (to ${real}); remove that symlink`);
  }
  return paths.specsDir;
}

// A name is taken by anything there, a dangling symlink included (existsSync follows links).
function isTaken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * fix_plan.md with the item's task as its only task. ralph wrote this plan, not the agent: the
 * plan's memory of the task before (with `paths.ledger`) starts again from it.
 */
export function writeItemPlan(paths: RalphPaths, item: QueueItem, specPath: string): void {
  const lines = [QUEUE_PLAN_HEADING, '', '## Current Task', ...itemTaskLines(item, specPath), ''];
  writeFileAtomic(paths.fixPlan, lines.join('\n'));
  forgetPlanMemory(paths);
}

/** The item's task as plan lines: the checkbox item and the spec it follows. */
export function itemTaskLines(item: QueueItem, specPath: string): string[] {
  const task =
    item.source === 'github' ? `Implement GitHub issue #${item.issue_number}: ${toPlainTextLine(item.title)}` : `Implement spec ${toPlainTextLine(item.title)}`;
  return [`- [ ] ${task}`, `  - Spec: ${toPlainTextLine(specPath)}`];
}
