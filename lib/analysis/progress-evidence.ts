// Progress is evidence, not a claim: a loop made progress only when the project's
// content reached a state it has not been in during this run. Content is one id per snapshot
// (a git tree of the working tree without ralph's control and state files, lib/loop/
// content-snapshot.ts); this file keeps the ids seen in the run and judges each loop. So
// flipping a file between two contents, `touch`, plan edits, or writing FILES_MODIFIED: 3 are
// not progress. What the agent reported is compared with what was measured, for the log only.
// Pure.

/** Content ids a run remembers (most recent kept): enough for any cycle an agent could use to look busy. */
export const MAX_SEEN_CONTENT = 256;

/** The content ids seen in one run (persisted with the breaker so a resumed run keeps them). */
export interface ContentMemoryState {
  /** The run the ids belong to; another run starts with none. */
  run: string;
  /** Oldest first. */
  seen: string[];
}

export interface ContentJudgement {
  /** The content after the loop is new in this run. */
  progress: boolean;
  memory: ContentMemoryState;
}

/** What the agent said it did and what ralph measured, as shown beside each other. */
export interface ProgressClaim {
  /** FILES_MODIFIED (or the result's declared count); null when the agent said nothing. */
  claimedFiles: number | null;
  /** Files whose content differs between the loop's start and end. */
  measuredFiles: number;
  /** The loop's end content was new in this run. */
  newContent: boolean;
}

// A git object id (SHA-1 or SHA-256): anything else on disk is not ours.
const CONTENT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export function emptyContentMemory(run: string): ContentMemoryState {
  return { run, seen: [] };
}

/** The memory as stored, when it is valid and belongs to `run`; otherwise an empty one. */
export function restoreContentMemory(stored: unknown, run: string): ContentMemoryState {
  if (typeof stored !== 'object' || stored === null) return emptyContentMemory(run);
  const { run: storedRun, seen } = stored as { run?: unknown; seen?: unknown };
  if (storedRun !== run || !Array.isArray(seen)) return emptyContentMemory(run);
  const ids = seen.filter((id): id is string => typeof id === 'string' && CONTENT_ID.test(id));
  return { run, seen: ids.slice(-MAX_SEEN_CONTENT) };
}

/**
 * One loop: its start content counts as seen, and it made progress only if its end content is
 * new. An unknown content (null: no measurement) is never progress.
 */
export function judgeContent(memory: ContentMemoryState, before: string | null, after: string | null): ContentJudgement {
  const seenBefore = remember(memory.seen, before);
  const progress = after !== null && !seenBefore.includes(after);
  return { progress, memory: { run: memory.run, seen: remember(seenBefore, after) } };
}

/** One line when the agent's report and the measurement disagree; null when they agree. */
export function describeClaimDisagreement(claim: ProgressClaim): string | null {
  const { claimedFiles, measuredFiles, newContent } = claim;
  if (claimedFiles === null) return null;
  const claimedWork = claimedFiles > 0;
  if (claimedWork === newContent && (claimedWork || measuredFiles === 0)) return null;
  const measured = newContent
    ? `${measuredFiles} changed file(s), new content`
    : measuredFiles > 0
      ? `${measuredFiles} changed file(s), but only back to content already seen in this run`
      : 'no changed files';
  return `the agent reported FILES_MODIFIED: ${claimedFiles}; ralph measured ${measured}`;
}

function remember(seen: string[], id: string | null): string[] {
  if (id === null) return seen;
  if (seen[seen.length - 1] === id) return seen;
  return [...seen.filter((s) => s !== id), id].slice(-MAX_SEEN_CONTENT);
}
