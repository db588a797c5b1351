// Progress as the loop measures it: one content snapshot per loop (the end of loop N is the
// start of loop N+1, unless the verification gate ran in between), judged against the content
// ids seen in this run. The ids are kept with the
// circuit breaker's state so a resumed run keeps them; a new run starts with none.

import { relative } from 'node:path';
import { judgeContent, restoreContentMemory } from './progress-evidence.js';
import { RALPH_DIR } from '../state/paths.js';
import { createContentSnapshotter, type ContentSnapshot, type LoopContentState } from './content-snapshot.js';

export type { LoopContentState };
import type { Run } from '../loop/run.js';

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
  return { progress: judged.progress, filesChanged };
}

/** Something other than the agent (the verification gate) may have changed files since the last snapshot. */
export function retakeContentAtNextLoop(run: Run): void {
  if (run.state.content) run.state.content.last = undefined;
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
  run.state.content = {
    snapshotter: createContentSnapshotter({
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
    }),
    memory: restoreContentMemory(run.state.breaker.value.seen_content, runId),
    lastProgress: false,
  };
  return run.state.content;
}
