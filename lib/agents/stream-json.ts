// Reading Claude's `--output-format stream-json` output: an accumulator that keeps only what
// the loop needs (session, final result, tool and rate-limit facts) in O(1) memory however
// long the stream is, and the `--live` rendering of a message. Lines come from
// line-splitter.ts (re-exported here). Pure: no I/O.

export { createLineSplitter, DEFAULT_MAX_LINE_LENGTH, type LineSplitter, type LineSplitterOptions } from './line-splitter.js';

import type { RateLimitSnapshot, StreamMessage, StreamSnapshot, ToolSummary } from './agent-result.js';
export type { RateLimitSnapshot, StreamMessage, StreamSnapshot, ToolSummary };

/** How much of the agent's own text the accumulator keeps (the end of it). */
export const ASSISTANT_TEXT_TAIL = 4096;

// Prefixes the CLI really prints first on these lines (anything else is parsed normally).
// `user` lines carry tool results (whole files, command output): the giant, useless ones.
export const USER_LINE_PREFIX = '{"type":"user",';
export const STREAM_EVENT_LINE_PREFIX = '{"type":"stream_event",';

const PLAIN_TEXT_HEAD = 2000;

export interface StreamAccumulatorOptions {
  /** Parse `stream_event` lines too (only live rendering of partial messages needs them). */
  parseStreamEvents?: boolean;
}

export interface StreamAccumulator {
  /** Take one stream-json line; returns the parsed message, or undefined if it was skipped. */
  push(line: string): StreamMessage | undefined;
  /** Take an already-parsed message (elements of a `--verbose` JSON array). */
  pushMessage(message: unknown): void;
  snapshot(): StreamSnapshot;
}

/** A stream of which nothing has been read yet. */
export function emptyStreamSnapshot(): StreamSnapshot {
  return {
    sessionId: null,
    model: null,
    result: null,
    toolUseCount: 0,
    lastTool: null,
    assistantTextTail: '',
    rateLimit: null,
    anyRateLimitRejected: false,
    apiRetryCount: 0,
    permissionDeniedEvents: 0,
    assistantError: null,
    sawInit: false,
    garbageLines: 0,
    plainTextHead: '',
    lineCount: 0,
    afterResultLines: 0,
  };
}

export function createStreamAccumulator(options: StreamAccumulatorOptions = {}): StreamAccumulator {
  const s = emptyStreamSnapshot();
  // Session id precedence: the result's, else init's (a run cut short has no result), else
  // whatever line carried one first.
  let resultSessionId: string | null = null;
  let initSessionId: string | null = null;
  let anySessionId: string | null = null;

  function take(message: StreamMessage): void {
    // The first result is the result: what follows it (a background child still printing, a
    // forged second result) is counted as after-result output and read for nothing.
    if (s.result) {
      s.afterResultLines++;
      return;
    }
    const type = message.type;
    if (anySessionId === null) anySessionId = stringField(message, 'session_id');
    if (type === 'system') takeSystem(message);
    else if (type === 'assistant') takeAssistant(message);
    else if (type === 'rate_limit_event') takeRateLimit(message);
    else if (type === 'result') {
      s.result = message;
      resultSessionId = stringField(message, 'session_id') ?? stringField(message, 'sessionId');
    }
    s.sessionId = resultSessionId ?? initSessionId ?? anySessionId;
  }

  function takeSystem(message: StreamMessage): void {
    const subtype = message.subtype;
    if (subtype === 'init') {
      s.sawInit = true;
      initSessionId = stringField(message, 'session_id') ?? initSessionId;
      const model = stringField(message, 'model');
      if (model) s.model = model;
    } else if (subtype === 'api_retry') {
      s.apiRetryCount++;
    } else if (subtype === 'permission_denied') {
      s.permissionDeniedEvents++;
    }
  }

  function takeAssistant(message: StreamMessage): void {
    const inner = asRecord(message.message);
    const error = stringField(message, 'error');
    if (error) s.assistantError = error;
    if (!inner) return;
    const model = stringField(inner, 'model');
    if (s.model === null && model && model !== '<synthetic>') s.model = model;
    const topLevel = message.parent_tool_use_id === null || message.parent_tool_use_id === undefined;
    const content = Array.isArray(inner.content) ? inner.content : [];
    for (const block of content) {
      const b = asRecord(block);
      if (!b) continue;
      if (b.type === 'tool_use') {
        s.toolUseCount++;
        const name = typeof b.name === 'string' ? b.name : 'unknown';
        s.lastTool = { name, summary: summarizeToolInput(name, b.input) };
      } else if (b.type === 'text' && topLevel && typeof b.text === 'string') {
        const joined = s.assistantTextTail ? `${s.assistantTextTail}\n${b.text}` : b.text;
        s.assistantTextTail = joined.length > ASSISTANT_TEXT_TAIL ? joined.slice(-ASSISTANT_TEXT_TAIL) : joined;
      }
    }
  }

  function takeRateLimit(message: StreamMessage): void {
    const info = asRecord(message.rate_limit_info);
    if (!info) return;
    const status = typeof info.status === 'string' ? info.status : 'unknown';
    s.rateLimit = {
      status,
      resetsAt: typeof info.resetsAt === 'number' ? info.resetsAt : null,
      rateLimitType: typeof info.rateLimitType === 'string' ? info.rateLimitType : null,
    };
    if (status === 'rejected') s.anyRateLimitRejected = true;
  }

  return {
    push(line) {
      s.lineCount++;
      const text = line.trim();
      if (text === '') return undefined;
      if (text.startsWith(USER_LINE_PREFIX)) return undefined;
      if (!options.parseStreamEvents && text.startsWith(STREAM_EVENT_LINE_PREFIX)) return undefined;
      if (s.result) {
        s.afterResultLines++;
        return undefined;
      }
      const message = parseObject(text);
      if (!message) {
        s.garbageLines++;
        if (s.plainTextHead.length < PLAIN_TEXT_HEAD) s.plainTextHead = `${s.plainTextHead}${text}\n`.slice(0, PLAIN_TEXT_HEAD);
        return undefined;
      }
      take(message);
      return message;
    },
    pushMessage(message) {
      s.lineCount++;
      const record = asRecord(message);
      if (record) take(record);
      else s.garbageLines++;
    },
    snapshot() {
      return { ...s, lastTool: s.lastTool && { ...s.lastTool }, rateLimit: s.rateLimit && { ...s.rateLimit } };
    },
  };
}

const TOOL_ARG_KEYS: Record<string, string> = {
  Bash: 'command',
  Read: 'file_path',
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Glob: 'pattern',
  Grep: 'pattern',
  Task: 'description',
  Agent: 'description',
  WebFetch: 'url',
  WebSearch: 'query',
};

/** The one argument worth showing for a tool call: first line, at most 120 characters. */
export function summarizeToolInput(name: string, input: unknown): string {
  const key = TOOL_ARG_KEYS[name];
  const record = asRecord(input);
  if (!key || !record) return '';
  const value = record[key];
  if (typeof value !== 'string') return '';
  const firstLine = value.split('\n', 1)[0] ?? '';
  return firstLine.length > 120 ? firstLine.slice(0, 120) : firstLine;
}

function parseObject(text: string): StreamMessage | null {
  if (text.charCodeAt(0) !== 0x7b /* { */) return null;
  try {
    return asRecord(JSON.parse(text));
  } catch {
    return null;
  }
}

export function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function stringField(record: Record<string, unknown>, key: string): string | null {
  const value = record[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

export interface LiveLineOptions {
  /** LIVE_SHOW_TOOL_ARGS: show the command / path / pattern after the tool name. */
  showToolArgs: boolean;
  /**
   * The stream carries `--include-partial-messages` deltas: text comes from `text_delta`
   * events, so complete assistant text blocks are not printed a second time.
   */
  partialMessages?: boolean;
}

/** Text for the `--live` view of one stream-json message ('' when it shows nothing). */
export function renderLiveLine(message: StreamMessage, options: LiveLineOptions): string {
  switch (message.type) {
    case 'assistant':
      return renderAssistant(message, options);
    case 'stream_event':
      return renderStreamEvent(asRecord(message.event));
    case 'system':
      if (message.subtype === 'task_started') {
        return `\n🚀 Agent: ${nonEmpty(message.description) ?? 'started'}\n`;
      }
      if (message.subtype === 'task_progress') {
        return `📌 ${nonEmpty(message.description) ?? 'working...'}\n`;
      }
      return '';
    default:
      return '';
  }
}

function renderAssistant(message: StreamMessage, options: LiveLineOptions): string {
  const content = asRecord(message.message)?.content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const block of content) {
    const b = asRecord(block);
    if (!b) continue;
    if (b.type === 'text' && !options.partialMessages && typeof b.text === 'string') {
      out += b.text.endsWith('\n') ? b.text : `${b.text}\n`;
    } else if (b.type === 'tool_use') {
      const name = typeof b.name === 'string' ? b.name : 'unknown';
      const arg = options.showToolArgs ? summarizeToolInput(name, b.input) : '';
      out += arg ? `\n⚡ [${name}] ${arg}\n` : `\n⚡ [${name}]\n`;
    }
  }
  return out;
}

function renderStreamEvent(event: Record<string, unknown> | null): string {
  if (!event) return '';
  if (event.type === 'content_block_delta') {
    const delta = asRecord(event.delta);
    return delta?.type === 'text_delta' && typeof delta.text === 'string' ? delta.text : '';
  }
  if (event.type === 'content_block_start') {
    const block = asRecord(event.content_block);
    return block?.type === 'tool_use' ? `\n⚙ ${nonEmpty(block.name) ?? 'tool'}...` : '';
  }
  if (event.type === 'content_block_stop') return '\n';
  return '';
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** The last tool an assistant message used, as `Name: argument`. */
export function lastToolUse(message: StreamMessage): string | undefined {
  if (message.type !== 'assistant') return undefined;
  const content = asRecord(message.message)?.content;
  if (!Array.isArray(content)) return undefined;
  let found: string | undefined;
  for (const block of content) {
    const b = asRecord(block);
    if (b?.type === 'tool_use' && typeof b.name === 'string') {
      const arg = summarizeToolInput(b.name, b.input);
      found = arg ? `${b.name}: ${arg}` : b.name;
    }
  }
  return found;
}
