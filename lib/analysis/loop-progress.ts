// Progress as the loop measures it: one content snapshot per loop (the end of loop N is the
// start of loop N+1, unless the verification gate ran in between), judged against the content
// ids seen in this run. The ids are kept with the
// circuit breaker's state so a resumed run keeps them; a new run starts with none.

import { statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { scopedSnapshotter, type ScopeFolder } from './content-scope.js';
import { hashText } from '../platform/hash.js';
import { readControlFile } from '../state/control-file.js';
import { judgeContent, restoreContentMemory } from './progress-evidence.js';
import { RALPH_DIR } from '../state/paths.js';
import { createContentSnapshotter, type ContentSnapshot, type LoopContentState } from './content-snapshot.js';

export type { LoopContentState };
import type { Run } from '../loop/run.js';
import type { ContentEvidence } from '../plan/plan-view.js';

export interface LoopProgress {
  /** The content after the loop was new in this run. */
  progress: boolean;
  /** Paths whose content differs between the loop's start and end. */
  filesChanged: string[];
}

/** The content when the loop starts (the previous loop's end, or a first snapshot). */
export async function contentAtLoopStart(run: Run): Promise<ContentSnapshot> {
  const content = loopContent(run);
  content.last ??= await content.snapshotter.take();
  if (content.last.id === null) warnUnmeasured(run, content);
  content.controlAtStart = askedControlFiles(run);
  return content.last;
}

/** Snapshot the content after the agent ran, and judge it. */
export async function measureLoopProgress(run: Run, before: ContentSnapshot): Promise<LoopProgress> {
  const content = loopContent(run);
  const after = await content.snapshotter.take();
  if (after.id === null) warnUnmeasured(run, content);
  const judged = judgeContent(content.memory, before.id, after.id);
  const filesChanged = await content.snapshotter.changedPaths(before, after);
  content.last = after;
  content.memory = judged.memory;
  content.lastProgress = judged.progress;
  content.lastChanged = after.id !== null && before.id !== null && after.id !== before.id;
  const start = content.controlAtStart ?? new Map<string, string>();
  content.lastControlChanged = [...askedControlFiles(run)].filter(([name, hash]) => start.has(name) && start.get(name) !== hash).map(([name]) => name);
  return { progress: judged.progress, filesChanged };
}

/** Something other than the agent (the verification gate) may have changed files since the last snapshot. */
export function retakeContentAtNextLoop(run: Run): void {
  if (run.state.content) run.state.content.last = undefined;
  run.sandbox.changes?.stale();
}

function warnUnmeasured(run: Run, content: LoopContentState): void {
  if (content.warned) return;
  content.warned = true;
  run.deps.logger.warn('Cannot take a content snapshot with git: no loop can count as progress, so the circuit breaker will open');
}

function loopContent(run: Run): LoopContentState {
  if (run.state.content) return run.state.content;
  const { paths, deps } = run;
  const runId = run.recorder?.record.run_id ?? '';
  const project = createContentSnapshotter({
    projectDir: paths.projectDir,
    stateDir: paths.contentSnapshot,
    // fix_plan.md, PROMPT.md and AGENT.md live under .ralph/ (the prompt may be configured elsewhere).
    excluded: [
      { path: RALPH_DIR, directory: true },
      { path: relative(paths.projectDir, paths.ralphrc), directory: false },
      { path: run.promptFile, directory: false },
      { path: paths.fixPlan, directory: false },
      { path: paths.agent, directory: false },
    ],
    processRunner: deps.processRunner,
    env: deps.env,
    // The walk the disarm step makes after each loop: git is asked only about the folders that changed.
    ...(run.gitRepositories ? { folders: run.gitRepositories.walker } : {}),
    // The sandbox's walk after each call: no second lstat of every file (lib/platform/tree-changes.ts).
    ...(run.sandbox.changes ? { changes: run.sandbox.changes } : {}),
  });
  run.state.content = {
    snapshotter: scopedSnapshotter(project, { folders: workFolders(run) }),
    memory: restoreContentMemory(run.state.breaker.value.seen_content, runId),
    lastProgress: false,
  };
  return run.state.content;
}

/** WORK_DIRS as folders with a snapshotter each; one that is missing, no folder or inside the project is left out, with a warning. */
function workFolders(run: Run): ScopeFolder[] {
  const { paths, deps } = run;
  const folders: ScopeFolder[] = [];
  for (const [i, entry] of run.config.WORK_DIRS.entries()) {
    const dir = resolve(paths.projectDir, entry);
    const label = relative(paths.projectDir, dir);
    const problem = workDirProblem(dir, label);
    if (problem) {
      deps.logger.warn(`WORK_DIRS entry ${JSON.stringify(entry)} ${problem}: its changes are not measured`);
      continue;
    }
    folders.push({
      label: `${label}/`,
      snapshotter: createContentSnapshotter({
        projectDir: dir,
        stateDir: join(paths.contentSnapshot, `work-${i}`),
        excluded: [],
        processRunner: deps.processRunner,
        env: deps.env,
      }),
    });
  }
  return folders;
}

function workDirProblem(dir: string, label: string): string | undefined {
  if (label === '' || (!label.startsWith('..') && !isAbsolute(label))) return 'is inside the project (measured already)';
  try {
    return statSync(dir).isDirectory() ? undefined : 'is no folder';
  } catch {
    return 'does not exist';
  }
}

/**
 * The control files (AGENT.md, fix_plan.md) an open item names, each with a hash of its text:
 * left out of the content, their changes are evidence for the items that ask for them only.
 */
function askedControlFiles(run: Run): Map<string, string> {
  const hashes = new Map<string, string>();
  for (const path of [run.paths.agent, run.paths.fixPlan]) {
    const name = basename(path);
    if (run.state.plan.openItemsName(name)) hashes.set(name, hashControlFile(path, run.paths.projectDir));
  }
  return hashes;
}

function hashControlFile(path: string, projectDir: string): string {
  try {
    return hashText(readControlFile(path, { projectDir }) ?? '\0absent', 40);
  } catch (error) {
    return `unreadable: ${(error as Error).message}`;
  }
}

/** What the latest loop measured, as evidence for the plan items it saw ticked (none before the first loop). */
export function contentEvidence(run: Run): ContentEvidence {
  const content = run.state.content;
  return { newContent: content?.lastProgress ?? false, changed: content?.lastChanged ?? false, controlFiles: content?.lastControlChanged ?? [] };
}
