// The reader shared by agents that print one JSON event per line (Codex's `exec --json`, Gemini
// CLI's stream-json, OpenCode's --format json): split the bytes into lines, decode each object,
// hand it to the agent's own folding, and count what was not JSON. Text mode is the shared text
// reader (text-output-reader.ts). The agent's fold decides what an event means; this file only
// moves bytes.

import type { AgentActivity, AgentOutputOptions, AgentOutputReader } from './agent-adapter.js';
import type { AgentResultSummary } from './claude-output.js';
import { createLineSplitter } from './line-splitter.js';
import { asRecord } from './stream-json.js';
import { createTextOutputReader } from './text-output-reader.js';

/** One agent's view of its event stream, fed event by event and summarized at the end. */
export interface EventFold {
  /** What one event shows in the live view, if anything. */
  push(event: Record<string, unknown>): AgentActivity | null;
  /** Whether this event is the run's final result: every line after it is after-result output. */
  isFinal(event: Record<string, unknown>): boolean;
  summarize(facts: { outputLength: number; garbageLines: number; plainTextHead: string; afterResultLines: number }): AgentResultSummary;
}

const PLAIN_TEXT_HEAD = 2000;

export function createJsonLinesReader(options: AgentOutputOptions, fold: EventFold): AgentOutputReader {
  if (options.outputFormat === 'text') return createTextOutputReader();
  const splitter = createLineSplitter();
  let outputLength = 0;
  let garbageLines = 0;
  let plainTextHead = '';
  let ended = false;
  let afterResultLines = 0;
  const read = (lines: string[]): AgentActivity[] => {
    const activity: AgentActivity[] = [];
    for (const raw of lines) {
      const line = raw.trim();
      if (line === '') continue;
      // The first result is the result: later lines (a forged result from a background child)
      // are counted, never folded.
      if (ended) {
        afterResultLines++;
        continue;
      }
      const event = parseEvent(line);
      if (!event) {
        // A CLI that printed its error as text, or a torn line.
        garbageLines++;
        if (plainTextHead.length < PLAIN_TEXT_HEAD) plainTextHead = `${plainTextHead}${line}\n`.slice(0, PLAIN_TEXT_HEAD);
        continue;
      }
      const shown = fold.push(event);
      if (shown) activity.push(shown);
      if (fold.isFinal(event)) ended = true;
    }
    return activity;
  };
  return {
    push(chunk) {
      outputLength += chunk.length;
      return read(splitter.push(chunk));
    },
    finish() {
      const activity = read(splitter.end());
      const summary = fold.summarize({ outputLength, garbageLines, plainTextHead, afterResultLines });
      return { summary: { ...summary, afterResultLines }, activity };
    },
  };
}

function parseEvent(line: string): Record<string, unknown> | null {
  if (line.charCodeAt(0) !== 0x7b /* { */) return null;
  try {
    return asRecord(JSON.parse(line));
  } catch {
    return null;
  }
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
