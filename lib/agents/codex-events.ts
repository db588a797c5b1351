// Reading `codex exec --json` (0.169): one JSON event a line — thread.started{thread_id},
// turn.started, item.started / item.completed {item: agent_message | command_execution |
// file_change | error | …}, error{message} (the CLI's retries: "Reconnecting... 2/5 (…)"),
// turn.completed{usage} or turn.failed{error}. The usage is the thread's running total (it
// grows over `resume`); the loop takes the difference (iteration.ts). Pure.

import type { AgentActivity, AgentOutputOptions, AgentOutputReader } from './agent-adapter.js';
import { emptySummary, type AgentResultSummary, type TokenUsage } from './claude-output.js';
import { createJsonLinesReader } from './json-lines-reader.js';

const MAX_ERRORS = 20;
const MAX_TOOL_ARG = 120;

interface CodexState {
  threadId: string | null;
  /** The last agent_message: the final answer once the turn completed. */
  lastMessage: string;
  turnCompleted: boolean;
  turnFailed: string | null;
  /** error events and error items, last MAX_ERRORS. */
  errors: string[];
  usage: TokenUsage;
}

export function createCodexOutputReader(options: AgentOutputOptions): AgentOutputReader {
  const state: CodexState = {
    threadId: null,
    lastMessage: '',
    turnCompleted: false,
    turnFailed: null,
    errors: [],
    usage: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
  };
  // `codex exec --json` prints its events whatever CLAUDE_OUTPUT_FORMAT says.
  return createJsonLinesReader(
    { ...options, outputFormat: 'json' },
    {
      isFinal: (event) => event.type === 'turn.completed' || event.type === 'turn.failed',
      push: (event) => applyEvent(state, event, options),
      summarize: ({ outputLength }) => summarizeCodex(state, outputLength),
    },
  );
}

/** The whole output of one run at once (tests, replays). */
export function readCodexOutput(stdout: string): AgentResultSummary {
  const reader = createCodexOutputReader({ outputFormat: 'json', showToolArgs: false });
  reader.push(Buffer.from(stdout, 'utf8'));
  return reader.finish().summary;
}

function applyEvent(state: CodexState, event: Record<string, unknown>, options: AgentOutputOptions): AgentActivity | null {
  switch (event.type) {
    case 'thread.started':
      if (typeof event.thread_id === 'string' && event.thread_id.trim() !== '') state.threadId = event.thread_id.trim();
      return null;
    case 'item.started':
    case 'item.updated':
    case 'item.completed':
      return applyItem(state, record(event.item), event.type === 'item.completed', options);
    case 'error':
      if (typeof event.message === 'string') pushError(state, event.message);
      return null;
    case 'turn.completed':
      state.turnCompleted = true;
      state.usage = usageOf(record(event.usage));
      return null;
    case 'turn.failed': {
      const message = record(event.error)?.message;
      state.turnFailed = typeof message === 'string' && message !== '' ? message : 'turn failed';
      return null;
    }
    default:
      return null;
  }
}

function applyItem(state: CodexState, item: Record<string, unknown> | null, completed: boolean, options: AgentOutputOptions): AgentActivity | null {
  if (!item) return null;
  if (item.type === 'agent_message' && completed && typeof item.text === 'string') {
    state.lastMessage = item.text;
    return { text: item.text.endsWith('\n') ? item.text : `${item.text}\n` };
  }
  if (item.type === 'error' && completed && typeof item.message === 'string') {
    pushError(state, item.message);
    return null;
  }
  if (item.type === 'command_execution' && !completed && typeof item.command === 'string') {
    const arg = item.command.slice(0, MAX_TOOL_ARG);
    return { text: options.showToolArgs ? `\n⚡ [Bash] ${arg}\n` : '\n⚡ [Bash]\n', tool: `Bash: ${arg}` };
  }
  if (item.type === 'file_change' && !completed) return { text: '\n⚡ [Edit]\n', tool: 'Edit' };
  return null;
}

function summarizeCodex(state: CodexState, outputLength: number): AgentResultSummary {
  const failed = state.turnFailed !== null;
  const errors = failed ? [...state.errors.filter((e) => e !== state.turnFailed), state.turnFailed!] : state.errors;
  return {
    ...emptySummary('stream-json', outputLength),
    hasResult: state.turnCompleted && !failed,
    resultText: state.lastMessage,
    isError: failed,
    subtype: failed ? 'turn_failed' : state.turnCompleted ? 'success' : null,
    sessionId: state.threadId,
    usage: state.usage,
    errors,
    hasResultField: state.turnCompleted,
  };
}

/**
 * OpenAI counts cached tokens inside input_tokens and reasoning tokens inside output_tokens;
 * ralph's usage keeps cache reads apart from fresh input, as Claude reports them.
 */
function usageOf(usage: Record<string, unknown> | null): TokenUsage {
  const n = (key: string) => {
    const value = usage?.[key];
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
  };
  const cached = n('cached_input_tokens');
  return {
    input: Math.max(0, n('input_tokens') - cached),
    output: n('output_tokens'),
    cacheRead: cached,
    cacheCreation: n('cache_write_input_tokens'),
  };
}

function pushError(state: CodexState, message: string): void {
  state.errors.push(message.length > 500 ? `${message.slice(0, 500)}…` : message);
  if (state.errors.length > MAX_ERRORS) state.errors.shift();
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
