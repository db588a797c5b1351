// Classifying a finished agent run: fine, or which kind of failure — each kind has its own
// handling in the loop (auth/billing: stop at once with the fix; transient: retry with a
// bounded exponential backoff; usage limit: wait for the stated reset; timeout; prompt too
// long: fresh session; unknown session: drop it and retry fresh once; anything else: failed).
// Texts are the Claude CLI's own error messages and are matched at the start of the
// result text, where the CLI puts its synthetic error message.

import { detectUsageLimit, type UsageLimitDetection } from '../limits/usage-limit.js';
import { firstLine, lastLine } from '../text/lines.js';

export interface AgentFailureInput {
  exitCode: number | null;
  /** Killed by our own wall-clock timeout. */
  timedOut: boolean;
  /** result.is_error (false when there was no result). */
  isError: boolean;
  resultText?: string | null;
  /** Stdout lines that were not JSON, when there was no result: a CLI that printed its error as text. */
  plainText?: string | null;
  /** result.subtype, e.g. "error_max_turns". */
  subtype?: string | null;
  /** result.errors[] (error_* subtypes carry no `result`). */
  errors?: string[] | null;
  /** result.terminal_reason, e.g. "prompt_too_long". */
  terminalReason?: string | null;
  apiErrorStatus?: number | null;
  /** result.api_error_type, e.g. "overloaded_error". */
  apiErrorType?: string | null;
  /** result.api_error, e.g. "usage_limit_reached", "connection_failed". */
  apiError?: string | null;
  /** stream-json synthetic assistant `error`, e.g. "authentication_failed". */
  assistantError?: string | null;
  rateLimitRejected?: { resetsAt?: number | null; rateLimitType?: string | null } | null;
  /** The last lines of stderr (pre-run errors such as unknown --resume ids land there). */
  stderrTail?: string | null;
}

export interface ClassifyAgentFailureOptions {
  now: number;
  defaultTimeZone?: string;
}

export type TransientReason = 'overloaded' | 'server_error' | 'network' | 'rate_limited' | 'request_timeout';

export type AgentFailureResult =
  | { kind: 'ok' }
  | { kind: 'timeout' }
  | { kind: 'usage_limit'; usageLimit: UsageLimitDetection; message: string }
  | { kind: 'auth'; message: string; fix: string }
  | { kind: 'billing'; message: string; fix: string }
  | { kind: 'transient'; reason: TransientReason; message: string }
  | { kind: 'prompt_too_long'; message: string }
  | { kind: 'session_not_found'; message: string }
  | { kind: 'failed'; message: string };

export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
}

export const DEFAULT_BACKOFF = { baseMs: 30_000, maxMs: 15 * 60_000 } as const;

const LOGIN_FIX =
  'run `claude`, type /login and sign in, then start ralph again (unattended machines: create a token with `claude setup-token` and export CLAUDE_CODE_OAUTH_TOKEN)';

type FatalRule = { re: RegExp; fix: string };

const AUTH_RULES: FatalRule[] = [
  {
    re: /^Invalid API key\s*·?\s*Fix external API key/i,
    fix: 'ANTHROPIC_API_KEY is set but not valid: export a valid key, or `unset ANTHROPIC_API_KEY` to use your claude login',
  },
  {
    re: /^Invalid auth token/i,
    fix: 'ANTHROPIC_AUTH_TOKEN is set but not valid: export a valid token, or `unset ANTHROPIC_AUTH_TOKEN`',
  },
  { re: /^Not logged in\b/i, fix: LOGIN_FIX },
  { re: /^Invalid API key\b/i, fix: LOGIN_FIX },
  { re: /^OAuth token (?:revoked|has expired)/i, fix: LOGIN_FIX },
  { re: /^Failed to authenticate\b/i, fix: LOGIN_FIX },
];

const BILLING_RULES: FatalRule[] = [
  {
    re: /^Credit balance is too low/i,
    fix: 'add credits to the API account of ANTHROPIC_API_KEY (Anthropic Console → Billing), or `unset ANTHROPIC_API_KEY` to use your Claude subscription',
  },
  { re: /^Your org is out of usage\s*·?\s*add funds/i, fix: 'add funds to your organisation’s Claude account, then start ralph again' },
  { re: /^Your org is out of usage/i, fix: 'ask your Claude organisation admin for more usage, then start ralph again' },
  {
    re: /^(?:Your seat type doesn['’]t include usage credits|Your usage allocation has been disabled|Your group['’]s usage limit is set to \$0|.{1,40} requires usage credits)/i,
    fix: 'ask your Claude organisation admin to enable usage for your seat, then start ralph again',
  },
];

const NETWORK_RE =
  /^API Error: (?:Can't reach|Can’t reach|No internet route|Connection refused|Connection error|Unable to connect)|^Unable to connect to API|\b(?:ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|ENETUNREACH|EHOSTUNREACH|EPIPE)\b/i;
const OVERLOADED_RE = /^API Error: (?:Repeated )?529\b|^API Error: .*Overloaded|^Repeated server overload|^Opus is experiencing high load/i;
const SERVER_RE = /^API Error: 5\d\d\b/i;
const RATE_RE = /^API Error: (?:Rate limit reached|Request rejected \(429\))/i;
const REQUEST_TIMEOUT_RE = /^Request timed out\b/i;
const TOO_LONG_RE = /^(?:Prompt is too long|Request too large)\b/i;
const NO_SESSION_RE = /No conversation found with session ID/i;

/** What kind of outcome a finished run is; see the file header for what each kind means. */
export function classifyAgentFailure(input: AgentFailureInput, options: ClassifyAgentFailureOptions): AgentFailureResult {
  if (input.timedOut) return { kind: 'timeout' };

  // A run that succeeded (no is_error, exit 0) is never a limit: its answer may quote a limit
  // message, and a rejected rate_limit_event may have been followed by a retry that worked.
  const failed = input.isError || input.exitCode !== 0;
  if (!failed) return { kind: 'ok' };

  const text = (input.resultText ?? '').trim();
  const message = firstLine(text) || firstLine((input.errors ?? []).join('\n')) || lastLine(input.stderrTail) || '';
  const usageLimit = detectUsageLimit({ ...input, resultText: input.resultText ?? input.plainText }, options);
  if (usageLimit) return { kind: 'usage_limit', usageLimit, message: usageLimit.rawText ?? message };

  const body = firstLine(text);
  const auth = AUTH_RULES.find((r) => r.re.test(body));
  if (auth) return { kind: 'auth', message: body, fix: auth.fix };
  if (input.apiErrorStatus === 401 || input.apiErrorType === 'authentication_error' || input.assistantError === 'authentication_failed') {
    return { kind: 'auth', message: message || 'authentication failed', fix: LOGIN_FIX };
  }
  const billing = BILLING_RULES.find((r) => r.re.test(body));
  if (billing) return { kind: 'billing', message: body, fix: billing.fix };

  if (NO_SESSION_RE.test(input.stderrTail ?? '') || NO_SESSION_RE.test(text)) {
    return { kind: 'session_not_found', message: lastMatchingLine(input.stderrTail, NO_SESSION_RE) ?? body };
  }
  if (input.terminalReason === 'prompt_too_long' || TOO_LONG_RE.test(body) || input.apiErrorStatus === 413) {
    return { kind: 'prompt_too_long', message };
  }
  const transient = classifyTransient(input, body);
  if (transient) return { kind: 'transient', reason: transient, message };

  return { kind: 'failed', message: message || `agent exited with code ${input.exitCode ?? 'unknown'}` };
}

/** Delay before retry `attempt` (1-based): base, 2×base, 4×base, … capped at maxMs. */
export function backoffDelayMs(attempt: number, options: BackoffOptions = {}): number {
  const baseMs = options.baseMs ?? DEFAULT_BACKOFF.baseMs;
  const maxMs = options.maxMs ?? DEFAULT_BACKOFF.maxMs;
  const n = Math.max(1, Math.floor(attempt));
  // 2 ** 60 overflows nothing useful; stop doubling long before that.
  return Math.min(maxMs, baseMs * 2 ** Math.min(n - 1, 30));
}

function classifyTransient(input: AgentFailureInput, body: string): TransientReason | null {
  const status = input.apiErrorStatus ?? null;
  if (input.apiError === 'connection_failed' || NETWORK_RE.test(body)) return 'network';
  if (status === 529 || input.apiErrorType === 'overloaded_error' || OVERLOADED_RE.test(body)) return 'overloaded';
  if (status === 429 || input.apiErrorType === 'rate_limit_error' || RATE_RE.test(body)) return 'rate_limited';
  if (status === 408 || REQUEST_TIMEOUT_RE.test(body)) return 'request_timeout';
  if ((status !== null && status >= 500 && status <= 599) || input.apiErrorType === 'api_error' || SERVER_RE.test(body)) {
    return 'server_error';
  }
  return null;
}

function lastMatchingLine(text: string | null | undefined, re: RegExp): string | null {
  const lines = (text ?? '').split('\n').filter((l) => re.test(l));
  return lines.length ? (lines[lines.length - 1] ?? '').trim() : null;
}
