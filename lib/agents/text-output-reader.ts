// The reader of every agent in text mode (CLAUDE_OUTPUT_FORMAT=text): each chunk is shown as it
// comes, and the last MiB is kept for the summary, which reads the status block at the end. Also
// the bounded append the JSON folds use for the assistant's answer.

import type { AgentOutputReader } from './agent-adapter.js';
import { extractAgentResult } from './claude-output.js';

const TEXT_TAIL_BYTES = 1024 * 1024;

export function createTextOutputReader(): AgentOutputReader {
  let tail = '';
  return {
    push(chunk) {
      const text = chunk.toString('utf8');
      tail = appendBounded(tail, text);
      return [{ text }];
    },
    finish: () => ({ summary: extractAgentResult(tail), activity: [] }),
  };
}

/** Keeps the last `max` characters of a growing text (the assistant's answer), O(max) memory. */
export function appendBounded(text: string, more: string, max = TEXT_TAIL_BYTES): string {
  const joined = text + more;
  return joined.length > max ? joined.slice(-max) : joined;
}
