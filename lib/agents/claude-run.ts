// One Claude Code run: the process (run-agent.ts) plus reading what it prints as it prints it.
// stream-json goes line by line through one accumulator (O(1) memory, session id from init even
// when cut short, tool use for the display); text mode keeps a bounded tail of stdout.

import { extractAgentResult, summarizeStream, type AgentResultSummary } from './agent-output.js';
import type { AgentInvocation, AgentRunKind } from './invocation.js';
import { startAgentProcess, type RunAgentOptions } from './run-agent.js';
import { createLineSplitter, createStreamAccumulator, USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX, type StreamMessage } from './stream-json.js';

export interface ClaudeRunOptions extends Omit<RunAgentOptions, 'onStdout' | 'invocation'> {
  invocation: AgentInvocation;
  outputFormat: 'json' | 'text';
  /** Each parsed stream-json message, as it arrives (live display, tool tracking). */
  onMessage?: (message: StreamMessage) => void;
  /** Each text-mode stdout chunk, as it arrives. */
  onText?: (text: string) => void;
}

export interface ClaudeRunResult {
  kind: AgentRunKind;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  stderrTail: string;
  spawnError?: NodeJS.ErrnoException;
  pipesHeldOpen: boolean;
  summary: AgentResultSummary;
}

export interface ClaudeRunHandle {
  result: Promise<ClaudeRunResult>;
  interrupt(): void;
}

const TEXT_TAIL_BYTES = 1024 * 1024;

export function startClaudeRun(options: ClaudeRunOptions): ClaudeRunHandle {
  // Tool results (`user` lines: whole files, command output) and partial-message events are the
  // bulk of a stream and carry nothing the loop reads; skip them before decoding.
  const splitter = createLineSplitter({ skipPrefixes: [USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX] });
  const accumulator = createStreamAccumulator();
  let outputLength = 0;
  let textTail = '';

  const onStdout = (chunk: Buffer) => {
    outputLength += chunk.length;
    if (options.outputFormat === 'text') {
      const text = chunk.toString('utf8');
      textTail = (textTail + text).slice(-TEXT_TAIL_BYTES);
      options.onText?.(text);
      return;
    }
    for (const line of splitter.push(chunk)) {
      const message = accumulator.push(line);
      if (message) options.onMessage?.(message);
    }
  };

  const process = startAgentProcess({ ...options, jsonOutput: options.outputFormat === 'json', onStdout });
  const result = process.done.then((raw): ClaudeRunResult => {
    let summary: AgentResultSummary;
    if (options.outputFormat === 'text') {
      summary = extractAgentResult(textTail);
    } else {
      for (const line of splitter.end()) {
        const message = accumulator.push(line);
        if (message) options.onMessage?.(message);
      }
      summary = summarizeStream(accumulator.snapshot(), outputLength);
    }
    return { ...raw, summary };
  });
  return { result, interrupt: () => process.interrupt() };
}
