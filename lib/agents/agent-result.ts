// The normalized result of one agent run, whatever agent ran: what every adapter's reader
// produces (lib/agents) and what the analysis, the failure classification and the spend read
// (lib/analysis, lib/limits). Types only.

import type { TokenUsage } from '../limits/spend.js';

export type StreamMessage = Record<string, unknown> & { type?: unknown };

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
  /** The first `type:"result"` message, or null when the stream was cut short. */
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
  /** The first PLAIN_TEXT_HEAD characters of the lines that were not JSON (a message the CLI printed as text). */
  plainTextHead: string;
  lineCount: number;
  /** Lines after the first result (not read as results; the loop warns about them). */
  afterResultLines: number;
}

export type AgentOutputFormat = 'json' | 'stream-json' | 'text';

export interface PermissionDenial {
  toolName: string;
  toolUseId: string | null;
  /** The tool's input as the CLI reported it (`command` for Bash, `file_path` for Edit, …). */
  input: Record<string, unknown>;
}

/** The tokens of a call, as spend counts them (limits/spend.ts). */
export type { TokenUsage };

/**
 * Fields of the Bash tool's own "flat" JSON format and the old CLI `metadata` object
 * read by the Bash tool. Real CLI output never has them; kept so such output still
 * means what it meant to the Bash tool.
 */
export interface DeclaredFields {
  status?: string;
  exitSignal?: boolean;
  workType?: string;
  filesModified?: number;
  errorCount?: number;
  confidence?: number;
  progressIndicatorCount?: number;
}

export interface AgentResultSummary {
  format: AgentOutputFormat;
  /** A result was found (json/stream-json: a `type:"result"` object; text: non-empty output). */
  hasResult: boolean;
  /** The result text; for a stream cut short, the tail of the agent's own text. */
  resultText: string;
  /** The CLI's real success flag. API errors come back as subtype "success" with is_error true. */
  isError: boolean;
  subtype: string | null;
  sessionId: string | null;
  usage: TokenUsage;
  totalCostUsd: number | null;
  /** This run's own cost from `model_usage_since_last_result` (stream-json, one result), else null. */
  sinceLastResultCostUsd: number | null;
  permissionDenials: PermissionDenial[];
  apiErrorStatus: number | null;
  apiErrorType: string | null;
  apiError: string | null;
  terminalReason: string | null;
  errors: string[];
  numTurns: number | null;
  /** Whether the output carried a `result` key at all (Bash gives such output +20 confidence). */
  hasResultField: boolean;
  declared: DeclaredFields;
  /** Length of the whole output, trailing newlines excluded (`output_length`). */
  outputLength: number;
  /** Stream facts (stream-json and JSON-array output only). */
  stream: StreamSnapshot | null;
  /** Output lines after the final result event, which are never read as results. */
  afterResultLines?: number;
}
