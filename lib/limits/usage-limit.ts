// Usage-limit detection: did this FAILED agent run stop because the subscription's 5-hour /
// weekly / extra-usage limit was hit? The caller asks only about runs that failed (is_error or
// a non-zero exit): a successful run is never a limit, whatever its text quotes or whichever
// rate_limit_event it saw on the way. Signals in the contract's order of preference (claude-cli
// contract rule 8): a timeout is never a usage limit; a rejected rate_limit_event; the result's
// api_error; then the CLI's own wordings of every era, matched in the result text only.
// Pure: the caller passes the final result text, never tool output or echoed files.

import { parseResetTime } from './reset-time.js';

export interface UsageLimitInput {
  /** Our own wall-clock timeout killed the run (exit 124/143): never a usage limit (Bash #183). */
  timedOut: boolean;
  /** The last stream-json `rate_limit_event` had `rate_limit_info.status: "rejected"`. */
  rateLimitRejected?: { resetsAt?: number | null; rateLimitType?: string | null } | null;
  /** result.api_error, e.g. "usage_limit_reached". */
  apiError?: string | null;
  /** result.api_error_status, e.g. 429. */
  apiErrorStatus?: number | null;
  /** The final result text (json `result`, or text-mode stdout). Never tool output. */
  resultText?: string | null;
}

export interface DetectUsageLimitOptions {
  now: number;
  defaultTimeZone?: string;
}

export interface UsageLimitDetection {
  kind: 'usage_limit' | 'extra_usage';
  source: 'rate_limit_event' | 'api_error' | 'text';
  /** When the CLI says the limit resets (epoch ms), if it said. */
  resetAt?: number;
  /** e.g. "five_hour", "seven_day", from the rate_limit_event. */
  limitType?: string;
  /** The CLI's one-line message, for display. */
  rawText?: string;
}

type Wording = { re: RegExp; kind: UsageLimitDetection['kind'] };

// What may follow the limit phrase in a CLI message: a separator before "resets …" / "/upgrade"
// ("·" U+00B7, "∙" U+2219, "•", "-", "–", "—", "|") or the end of the line. Prose like
// "You've hit your limit of three retries." does not qualify.
const TAIL = String.raw`(?=\s*(?:[·∙•|\-–—]|$))`;
const APOS = `['’]`;
const WINDOW = String.raw`(?:\d+-hour|session|daily|weekly|monthly|opus|sonnet|usage)`;

// Anchored at the start of the (first line of the) result text: the CLI's limit message is
// the whole result, so a mention inside a longer answer never matches.
const WORDINGS: Wording[] = [
  // ≤ 1.0.8x print mode: "Claude AI usage limit reached|1750708800"; interactive render:
  // "Claude usage limit reached. Your limit will reset at 3pm (America/Bogota)."
  { re: /^Claude (?:AI )?usage limit reached(?=\s*(?:[|.·∙]|$))/i, kind: 'usage_limit' },
  // 1.0.8x–2.0.x: "5-hour limit reached ∙ resets 3am", "Opus weekly limit reached · resets …"
  { re: new RegExp(String.raw`^(?:${WINDOW}\s+){1,2}limit reached${TAIL}`, 'i'), kind: 'usage_limit' },
  // team/enterprise: "Session limit resets 4am ∙ contact an admin to keep working"
  { re: new RegExp(String.raw`^(?:${WINDOW}\s+){1,2}limit resets\s`, 'i'), kind: 'usage_limit' },
  // 2.1.x: "You've hit your limit · resets 1pm (Europe/Lisbon)", "… your 5-hour limit …",
  // "… your Opus limit …", "… your usage credit limit", "… your monthly spend limit"; the
  // plain-text print form "You've reached your 5-hour usage limit for Claude." and
  // "You've reached your usage limit for Claude Opus 4.5 · resets 3:10pm (America/Chicago)"
  {
    re: new RegExp(String.raw`^You(?:${APOS}ve| have) (?:hit|reached) your (?:[\w$-]+\s+){0,3}?limit(?:\s+for Claude\b[^·∙•|]*)?${TAIL}`, 'i'),
    kind: 'usage_limit',
  },
  // The second line of that plain-text form, when it is all that is left of the message.
  { re: /^Please try again later when your (?:usage )?limit resets\b/i, kind: 'usage_limit' },
  // "You're out of extra usage · resets 9pm", "You're out of usage credits"
  { re: new RegExp(String.raw`^You${APOS}re out of (?:extra usage|usage credits)(?=\s*(?:[·∙•|\-–—.]|$))`, 'i'), kind: 'extra_usage' },
];

const PREFIX_RE = /^(?:API Error:\s*|Error:\s*)/i;

/** A usage limit, or null. `now` resolves reset times stated as wall-clock text. */
export function detectUsageLimit(input: UsageLimitInput, options: DetectUsageLimitOptions): UsageLimitDetection | null {
  if (input.timedOut) return null;
  const text = input.resultText ?? '';
  const wording = matchUsageLimitWording(text);
  // With a structural signal the result text is known to be the limit message, whatever
  // its wording; without one only a recognised wording counts.
  const firstLine = (text.trim().split('\n')[0] ?? '').trim();
  const rawText = wording?.line ?? (firstLine || undefined);
  const textReset = () => (rawText ? parseResetTime(rawText, options.now, options) : null);

  const event = input.rateLimitRejected;
  if (event) {
    const resetAt = isEpoch(event.resetsAt) ? toMs(event.resetsAt) : textReset();
    return compact({
      kind: wording?.kind ?? 'usage_limit',
      source: 'rate_limit_event',
      resetAt: resetAt ?? undefined,
      limitType: event.rateLimitType ?? undefined,
      rawText,
    });
  }
  // A 429 alone is not enough: an API-key 429 ("API Error: Request rejected (429) · …") is
  // a plain rate limit and is retried with backoff (agent-failure), not waited out.
  if (input.apiError === 'usage_limit_reached' || (input.apiErrorStatus === 429 && wording)) {
    return compact({
      kind: wording?.kind ?? 'usage_limit',
      source: 'api_error',
      resetAt: textReset() ?? undefined,
      rawText,
    });
  }
  if (wording) {
    const resetAt = parseResetTime(wording.line, options.now, options);
    return compact({ kind: wording.kind, source: 'text', resetAt: resetAt ?? undefined, rawText });
  }
  return null;
}

/** The CLI's usage-limit message if `text` is one (first line, any era), else null. */
export function matchUsageLimitWording(text: string): { kind: UsageLimitDetection['kind']; line: string } | null {
  const line = (text.trim().split('\n')[0] ?? '').trim();
  const body = line.replace(PREFIX_RE, '');
  for (const { re, kind } of WORDINGS) {
    if (re.test(body)) return { kind, line };
  }
  return null;
}

function isEpoch(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/** rate_limit_info.resetsAt is epoch seconds; tolerate milliseconds. */
function toMs(epoch: number): number {
  return epoch > 1e12 ? epoch : epoch * 1000;
}

function compact(d: UsageLimitDetection): UsageLimitDetection {
  const out: UsageLimitDetection = { kind: d.kind, source: d.source };
  if (d.resetAt !== undefined) out.resetAt = d.resetAt;
  if (d.limitType !== undefined) out.limitType = d.limitType;
  if (d.rawText !== undefined) out.rawText = d.rawText;
  return out;
}
