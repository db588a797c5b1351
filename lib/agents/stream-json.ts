// Reading Claude's `--output-format stream-json` output: a chunk-to-line splitter, an
// accumulator that keeps only what the loop needs (session, final result, tool and rate-limit
// facts) in O(1) memory however long the stream is, and the `--live` rendering of a message.
// Pure: no I/O.

/** A line longer than this is skipped (counted), never held whole in memory. */
export const DEFAULT_MAX_LINE_LENGTH = 4 * 1024 * 1024;
/** How much of the agent's own text the accumulator keeps (the end of it). */
export const ASSISTANT_TEXT_TAIL = 4096;

// Prefixes the CLI really prints first on these lines (anything else is parsed normally).
// `user` lines carry tool results (whole files, command output): the giant, useless ones.
export const USER_LINE_PREFIX = '{"type":"user",';
export const STREAM_EVENT_LINE_PREFIX = '{"type":"stream_event",';

export type StreamMessage = Record<string, unknown> & { type?: unknown };

export interface LineSplitter {
  /** Feed a chunk; returns the lines it completed (without their line terminator). */
  push(chunk: Buffer | string): string[];
  /** End of input: returns the last line if it had no terminator. */
  end(): string[];
  /** Lines dropped because they were longer than maxLineLength. */
  readonly skippedLines: number;
  /** Lines dropped, undecoded, because they started with one of skipPrefixes. */
  readonly filteredLines: number;
}

export interface LineSplitterOptions {
  /** In bytes. */
  maxLineLength?: number;
  /** Drop lines starting with any of these without decoding them (e.g. USER_LINE_PREFIX). */
  skipPrefixes?: string[];
}

const NEWLINE = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Chunks in, complete lines out. Splits on bytes and decodes each whole line, so a multi-byte
 * character split across chunks is never broken (a UTF-8 sequence never contains a 0x0A
 * byte). Handles CRLF and a leading BOM; a giant line is dropped as it streams past.
 */
export function createLineSplitter(options: LineSplitterOptions = {}): LineSplitter {
  const maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const prefixes = (options.skipPrefixes ?? []).map((p) => Buffer.from(p, 'utf8'));
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let discarding = false;
  let firstLine = true;
  let skipped = 0;
  let filtered = 0;

  function split(chunk: Buffer, lines: string[]): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      if (discarding) {
        discarding = false;
        firstLine = false;
        skipped++;
      } else if (pendingLength > 0) {
        pending.push(chunk.subarray(start, nl));
        const line = Buffer.concat(pending, pendingLength + nl - start);
        pending = [];
        pendingLength = 0;
        emit(line, lines);
      } else {
        emit(chunk.subarray(start, nl), lines);
      }
      start = nl + 1;
    }
    if (discarding || start >= chunk.length) return;
    // Copy: the caller may reuse its chunk buffer.
    const rest = Buffer.from(chunk.subarray(start));
    pending.push(rest);
    pendingLength += rest.length;
    if (pendingLength > maxLineLength) {
      pending = [];
      pendingLength = 0;
      discarding = true;
    }
  }

  function emit(raw: Buffer, lines: string[]): void {
    let line = raw;
    if (firstLine) {
      firstLine = false;
      if (line.subarray(0, 3).equals(BOM)) line = line.subarray(3);
    }
    let end = line.length;
    if (end > 0 && line[end - 1] === 0x0d) end--;
    if (end > maxLineLength) {
      skipped++;
      return;
    }
    for (const prefix of prefixes) {
      if (end >= prefix.length && line.compare(prefix, 0, prefix.length, 0, prefix.length) === 0) {
        filtered++;
        return;
      }
    }
    lines.push(line.toString('utf8', 0, end));
  }

  return {
    push(chunk) {
      const lines: string[] = [];
      split(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk, lines);
      return lines;
    },
    end() {
      const lines: string[] = [];
      if (discarding) skipped++;
      else if (pendingLength > 0) emit(Buffer.concat(pending, pendingLength), lines);
      discarding = false;
      pending = [];
      pendingLength = 0;
      return lines;
    },
    get skippedLines() {
      return skipped;
    },
    get filteredLines() {
      return filtered;
    },
  };
}

export interface ToolSummary {
  name: string;
  /** The argument worth showing: command, file path, pattern or description (first line, ≤120). */
  summary: string;
}

export interface RateLimitSnapshot {
  status: string;
  /** Epoch seconds, as the CLI reports it. */
  resetsAt: number | null;
  rateLimitType: string | null;
}

export interface StreamSnapshot {
  sessionId: string | null;
  model: string | null;
  /** The last `type:"result"` message, or null when the stream was cut short. */
  result: StreamMessage | null;
  toolUseCount: number;
  lastTool: ToolSummary | null;
  /** Last ASSISTANT_TEXT_TAIL characters of the top-level assistant text blocks. */
  assistantTextTail: string;
  /** The last rate_limit_event only. */
  rateLimit: RateLimitSnapshot | null;
  anyRateLimitRejected: boolean;
  apiRetryCount: number;
  permissionDeniedEvents: number;
  /** Top-level `error` of the last synthetic assistant message (`rate_limit`, `authentication_failed`, …). */
  assistantError: string | null;
  sawInit: boolean;
  garbageLines: number;
  lineCount: number;
}

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

export function createStreamAccumulator(options: StreamAccumulatorOptions = {}): StreamAccumulator {
  const s: StreamSnapshot = {
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
    lineCount: 0,
  };
  // Session id precedence: the result's, else init's (a run cut short has no result), else
  // whatever line carried one first.
  let resultSessionId: string | null = null;
  let initSessionId: string | null = null;
  let anySessionId: string | null = null;

  function take(message: StreamMessage): void {
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
      const message = parseObject(text);
      if (!message) {
        s.garbageLines++;
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
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
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
