// Turning whatever Claude printed into one normalized summary: a single JSON result object,
// a `--verbose` JSON array of messages, stream-json lines, or plain text. Tolerates unknown
// fields, any key order and the historical shapes (older CLI versions' smaller field sets, the Bash tool's flat format). Pure.

import type { AgentOutputFormat, AgentResultSummary, DeclaredFields, PermissionDenial, StreamSnapshot, TokenUsage } from './agent-result.js';
import { asRecord, createLineSplitter, createStreamAccumulator, STREAM_EVENT_LINE_PREFIX, USER_LINE_PREFIX } from './stream-json.js';

export type { AgentOutputFormat, AgentResultSummary, DeclaredFields, PermissionDenial, TokenUsage };

/** Which shape an output has. A JSON array and a single object are both 'json'. */
export function detectOutputFormat(text: string): AgentOutputFormat {
  const body = stripBom(text).trim();
  if (body === '') return 'text';
  const first = body.charCodeAt(0);
  if (first === 0x5b /* [ */) return Array.isArray(tryParse(body)) ? 'json' : 'text';
  if (first === 0x7b /* { */) {
    const newline = body.indexOf('\n');
    const firstLine = newline === -1 ? body : body.slice(0, newline);
    // NDJSON: every stream starts with a typed message on its own line (system/init).
    if (newline !== -1 && typeof asRecord(tryParse(firstLine.trim()))?.type === 'string') {
      return 'stream-json';
    }
    const whole = asRecord(tryParse(body));
    if (whole) {
      // A stream cut short after its first line (SIGTERM after init) is one typed message.
      const type = whole.type;
      return typeof type === 'string' && type !== 'result' ? 'stream-json' : 'json';
    }
  }
  // stderr merged into the output (Bash background mode) puts warnings before the JSON lines;
  // a result line anywhere still makes it a stream.
  return hasResultLine(body) ? 'stream-json' : 'text';
}

/** Summarize a whole buffered output, whatever its shape. */
export function extractAgentResult(text: string): AgentResultSummary {
  const format = detectOutputFormat(text);
  const outputLength = text.replace(/[\r\n]+$/, '').length;
  if (format === 'text') return summarizeText(text, outputLength);
  if (format === 'stream-json') {
    const splitter = createLineSplitter({ skipPrefixes: [USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX] });
    const accumulator = createStreamAccumulator();
    for (const line of splitter.push(text)) accumulator.push(line);
    for (const line of splitter.end()) accumulator.push(line);
    return summarizeStream(accumulator.snapshot(), outputLength);
  }
  const value = tryParse(stripBom(text).trim());
  if (Array.isArray(value)) {
    // `--output-format json --verbose`: one array of every message; the first result counts.
    const accumulator = createStreamAccumulator();
    for (const message of value) accumulator.pushMessage(message);
    return { ...summarizeStream(accumulator.snapshot(), outputLength), format: 'json' };
  }
  return summarizeResultObject(asRecord(value) ?? {}, 'json', outputLength, null);
}

/** Summary of a stream read line by line (the runner feeds its own accumulator). */
export function summarizeStream(snapshot: StreamSnapshot, outputLength = 0): AgentResultSummary {
  if (snapshot.result) {
    const summary = summarizeResultObject(snapshot.result, 'stream-json', outputLength, snapshot);
    return { ...summary, sessionId: summary.sessionId ?? snapshot.sessionId, afterResultLines: snapshot.afterResultLines };
  }
  return {
    ...emptySummary('stream-json', outputLength),
    resultText: snapshot.assistantTextTail,
    sessionId: snapshot.sessionId,
    stream: snapshot,
  };
}

function summarizeResultObject(
  result: Record<string, unknown>,
  format: AgentOutputFormat,
  outputLength: number,
  stream: StreamSnapshot | null,
): AgentResultSummary {
  const metadata = asRecord(result.metadata) ?? {};
  const usage = asRecord(result.usage) ?? {};
  const resultText = str(result.result) ?? str(result.summary) ?? '';
  return {
    format,
    hasResult: Object.keys(result).length > 0,
    resultText,
    isError: result.is_error === true,
    subtype: str(result.subtype),
    // 2.x prints session_id; some older shapes sessionId or metadata.session_id.
    sessionId: nonEmpty(result.session_id) ?? nonEmpty(result.sessionId) ?? nonEmpty(metadata.session_id),
    usage: {
      input: num(usage.input_tokens) ?? 0,
      output: num(usage.output_tokens) ?? 0,
      cacheRead: num(usage.cache_read_input_tokens) ?? 0,
      cacheCreation: num(usage.cache_creation_input_tokens) ?? 0,
    },
    // Named total_cost before CLI 1.0.22.
    totalCostUsd: num(result.total_cost_usd) ?? num(result.total_cost),
    sinceLastResultCostUsd: sinceLastResultCost(result),
    permissionDenials: normalizeDenials(result.permission_denials),
    apiErrorStatus: num(result.api_error_status),
    apiErrorType: str(result.api_error_type),
    apiError: str(result.api_error),
    terminalReason: str(result.terminal_reason),
    errors: Array.isArray(result.errors) ? result.errors.filter((e): e is string => typeof e === 'string') : [],
    numTurns: num(result.num_turns),
    hasResultField: 'result' in result,
    declared: declaredFields(result, metadata),
    outputLength,
    stream,
  };
}

/**
 * total_cost_usd and modelUsage are cumulative across --resume; model_usage_since_last_result
 * is per result. With a later result of the same run (result_index > 0) it covers only that
 * turn, so it is the run's cost only for its first result.
 */
function sinceLastResultCost(result: Record<string, unknown>): number | null {
  const since = asRecord(result.model_usage_since_last_result);
  const index = num(result.result_index);
  if (!since || (index !== null && index > 0)) return null;
  let total = 0;
  let found = false;
  for (const usage of Object.values(since)) {
    const cost = num(asRecord(usage)?.costUSD);
    if (cost === null || cost < 0) continue;
    total += cost;
    found = true;
  }
  return found ? total : null;
}

function declaredFields(result: Record<string, unknown>, metadata: Record<string, unknown>): DeclaredFields {
  const declared: DeclaredFields = {};
  const completion = str(metadata.completion_status);
  const status = completion?.toUpperCase() === 'COMPLETE' ? 'COMPLETE' : str(result.status);
  if (status !== null) declared.status = status;
  if (typeof result.exit_signal === 'boolean') declared.exitSignal = result.exit_signal;
  else if (result.exit_signal === 'true' || result.exit_signal === 'false') {
    declared.exitSignal = result.exit_signal === 'true';
  }
  const workType = str(result.work_type);
  if (workType !== null) declared.workType = workType;
  const files = num(metadata.files_changed) ?? num(result.files_modified);
  if (files !== null) declared.filesModified = files;
  let errorCount = num(result.error_count);
  if (metadata.has_errors === true) errorCount = Math.max(errorCount ?? 0, 1);
  if (errorCount !== null) declared.errorCount = errorCount;
  const confidence = num(result.confidence);
  if (confidence !== null) declared.confidence = confidence;
  if (Array.isArray(metadata.progress_indicators)) {
    declared.progressIndicatorCount = metadata.progress_indicators.length;
  }
  return declared;
}

function normalizeDenials(value: unknown): PermissionDenial[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry) => {
    const denial = asRecord(entry) ?? {};
    return {
      toolName: nonEmpty(denial.tool_name) ?? 'unknown',
      toolUseId: str(denial.tool_use_id),
      input: asRecord(denial.tool_input) ?? {},
    };
  });
}

function summarizeText(text: string, outputLength: number): AgentResultSummary {
  const resultText = stripBom(text).replace(/\s+$/, '');
  return { ...emptySummary('text', outputLength), hasResult: resultText.trim() !== '', resultText };
}

/** A summary with nothing reported yet (the base every agent's reader fills). */
export function emptySummary(format: AgentOutputFormat, outputLength: number): AgentResultSummary {
  return {
    format,
    hasResult: false,
    resultText: '',
    isError: false,
    subtype: null,
    sessionId: null,
    usage: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
    totalCostUsd: null,
    sinceLastResultCostUsd: null,
    permissionDenials: [],
    apiErrorStatus: null,
    apiErrorType: null,
    apiError: null,
    terminalReason: null,
    errors: [],
    numTurns: null,
    hasResultField: false,
    declared: {},
    outputLength,
    stream: null,
  };
}

function hasResultLine(body: string): boolean {
  const re = /"type"\s*:\s*"result"/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(body)) !== null) {
    const start = body.lastIndexOf('\n', match.index) + 1;
    const end = body.indexOf('\n', match.index);
    const line = body.slice(start, end === -1 ? body.length : end).trim();
    if (asRecord(tryParse(line))?.type === 'result') return true;
  }
  return false;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
