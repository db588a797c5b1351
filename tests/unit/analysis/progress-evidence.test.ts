import { describe, expect, it } from 'vitest';
import {
  MAX_SEEN_CONTENT,
  describeClaimDisagreement,
  emptyContentMemory,
  judgeContent,
  restoreContentMemory,
  type ContentMemoryState,
} from '../../../lib/analysis/progress-evidence.js';

const id = (n: number) => n.toString(16).padStart(40, '0');

/** Judge a sequence of loop-end contents, each loop starting where the previous ended. */
function judgeAll(start: string, ends: string[], memory: ContentMemoryState = emptyContentMemory('r')) {
  let before = start;
  const progress: boolean[] = [];
  for (const after of ends) {
    const judged = judgeContent(memory, before, after);
    progress.push(judged.progress);
    memory = judged.memory;
    before = after;
  }
  return { progress, memory };
}

describe('judgeContent', () => {
  it('is progress only when the loop ends in content not seen in the run', () => {
    expect(judgeAll(id(0), [id(1), id(2), id(3)]).progress).toEqual([true, true, true]);
  });

  it('an unchanged tree is no progress, whatever happened to mtimes or HEAD', () => {
    expect(judgeAll(id(0), [id(0), id(0)]).progress).toEqual([false, false]);
  });

  it('flipping between two contents is progress once, then never again', () => {
    expect(judgeAll(id(0), [id(1), id(0), id(1), id(0), id(1)]).progress).toEqual([true, false, false, false, false]);
  });

  it('going back to the start content of the run is no progress', () => {
    expect(judgeAll(id(0), [id(1), id(2), id(0)]).progress).toEqual([true, true, false]);
  });

  it('a failed measurement is never progress', () => {
    expect(judgeContent(emptyContentMemory('r'), id(0), null).progress).toBe(false);
    expect(judgeContent(emptyContentMemory('r'), null, id(1)).progress).toBe(true);
  });

  it('keeps at most MAX_SEEN_CONTENT ids, the most recent', () => {
    const ends = Array.from({ length: MAX_SEEN_CONTENT + 10 }, (_, i) => id(i + 1));
    const { memory } = judgeAll(id(0), ends);
    expect(memory.seen).toHaveLength(MAX_SEEN_CONTENT);
    expect(memory.seen.at(-1)).toBe(id(MAX_SEEN_CONTENT + 10));
    expect(memory.seen).not.toContain(id(0));
  });

  it('a content seen again moves to the recent end instead of being stored twice', () => {
    const { memory } = judgeAll(id(0), [id(1), id(0)]);
    expect(memory.seen).toEqual([id(1), id(0)]);
  });
});

describe('restoreContentMemory', () => {
  it('keeps the ids of the same run and drops anything that is not an object id', () => {
    const stored = { run: 'r1', seen: [id(1), 'not-an-id', 42, id(2)] };
    expect(restoreContentMemory(stored, 'r1')).toEqual({ run: 'r1', seen: [id(1), id(2)] });
  });

  it('starts empty for another run or unreadable data', () => {
    expect(restoreContentMemory({ run: 'r1', seen: [id(1)] }, 'r2')).toEqual({ run: 'r2', seen: [] });
    expect(restoreContentMemory('garbage', 'r2')).toEqual({ run: 'r2', seen: [] });
    expect(restoreContentMemory({ run: 'r2', seen: 'x' }, 'r2')).toEqual({ run: 'r2', seen: [] });
  });

  it('a resumed run still knows the contents it has seen', () => {
    const first = judgeAll(id(0), [id(1)]);
    const resumed = restoreContentMemory(JSON.parse(JSON.stringify(first.memory)), 'r');
    expect(judgeAll(id(1), [id(0)], resumed).progress).toEqual([false]);
  });
});

describe('describeClaimDisagreement', () => {
  it('says nothing when the agent reported nothing or the report matches the measurement', () => {
    expect(describeClaimDisagreement({ claimedFiles: null, measuredFiles: 0, newContent: false })).toBeNull();
    expect(describeClaimDisagreement({ claimedFiles: 2, measuredFiles: 3, newContent: true })).toBeNull();
    expect(describeClaimDisagreement({ claimedFiles: 0, measuredFiles: 0, newContent: false })).toBeNull();
  });

  it('names a claim of work that changed nothing, and work that was not reported', () => {
    expect(describeClaimDisagreement({ claimedFiles: 3, measuredFiles: 0, newContent: false })).toBe(
      'the agent reported FILES_MODIFIED: 3; ralph measured no changed files',
    );
    expect(describeClaimDisagreement({ claimedFiles: 0, measuredFiles: 2, newContent: true })).toBe(
      'the agent reported FILES_MODIFIED: 0; ralph measured 2 changed file(s), new content',
    );
  });
});
