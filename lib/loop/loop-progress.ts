// Progress as the loop measures it: one content snapshot per loop (the end of loop N is the
// start of loop N+1, unless the verification gate ran in between), judged against the content
// ids seen in this run. The ids are kept with the
// circuit breaker's state so a resumed run keeps them; a new run starts with none.

import { relative } from 'node:path';
import { judgeContent, restoreContentMemory, type ContentMemoryState } from '../core/progress-evidence.js';
import { RALPH_DIR } from '../state/paths.js';
import { createContentSnapshotter, type ContentSnapshot, type ContentSnapshotter } from './content-snapshot.js';
import type { LoopRuntime } from './runtime.js';

export interface LoopContentState {
  snapshotter: ContentSnapshotter;
  memory: ContentMemoryState;
  /** The latest snapshot: the start of the next loop. */
  last?: ContentSnapshot;
  /** The latest measured loop reached new content. */
  lastProgress: boolean;
  /** The one warning about an unmeasurable content was given. */
  warned?: boolean;
}

export interface LoopProgress {
  /** The content after the loop was new in this run. */
  progress: boolean;
  /** Paths whose content differs between the loop's start and end. */
  filesChanged: string[];
}

/** The content when the loop starts (the previous loop's end, or a first snapshot). */
export async function contentAtLoopStart(rt: LoopRuntime): Promise<ContentSnapshot> {
  const content = loopContent(rt);
  content.last ??= await content.snapshotter.take();
  if (content.last.id === null) warnUnmeasured(rt, content);
  return content.last;
}

/** Snapshot the content after the agent ran, and judge it. */
export async function measureLoopProgress(rt: LoopRuntime, before: ContentSnapshot): Promise<LoopProgress> {
  const content = loopContent(rt);
  const after = await content.snapshotter.take();
  if (after.id === null) warnUnmeasured(rt, content);
  const judged = judgeContent(content.memory, before.id, after.id);
  const filesChanged = await content.snapshotter.changedPaths(before, after);
  content.last = after;
  content.memory = judged.memory;
  content.lastProgress = judged.progress;
  return { progress: judged.progress, filesChanged };
}

/** Something other than the agent (the verification gate) may have changed files since the last snapshot. */
export function retakeContentAtNextLoop(rt: LoopRuntime): void {
  if (rt.content) rt.content.last = undefined;
}

function warnUnmeasured(rt: LoopRuntime, content: LoopContentState): void {
  if (content.warned) return;
  content.warned = true;
  rt.deps.logger.warn('Cannot take a content snapshot with git: no loop can count as progress, so the circuit breaker will open');
}

function loopContent(rt: LoopRuntime): LoopContentState {
  if (rt.content) return rt.content;
  const { paths, deps } = rt;
  const runId = rt.recorder?.record.run_id ?? '';
  rt.content = {
    snapshotter: createContentSnapshotter({
      projectDir: paths.projectDir,
      stateDir: paths.contentSnapshot,
      // fix_plan.md, PROMPT.md and AGENT.md live under .ralph/ (the prompt may be configured elsewhere).
      excluded: [
        { path: RALPH_DIR, directory: true },
        { path: relative(paths.projectDir, paths.ralphrc), directory: false },
        { path: rt.promptFile, directory: false },
        { path: paths.fixPlan, directory: false },
        { path: paths.agent, directory: false },
      ],
      processRunner: deps.processRunner,
      env: deps.env,
    }),
    memory: restoreContentMemory(rt.breaker.seen_content, runId),
    lastProgress: false,
  };
  return rt.content;
}
