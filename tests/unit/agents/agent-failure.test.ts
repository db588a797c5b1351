import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, classifyAgentFailure, type AgentFailureInput } from '../../../lib/agents/agent-failure.js';

const recordings = new URL('../../fixtures/claude-cli-2.1.332/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, recordings), 'utf8');
const rc = (label: string) => Number(read(`${label}.rc`).trim());
const now = Date.parse('2026-11-30T03:10:00Z');

/** Map a recorded json/stream-json run to the classifier input, as the adapter would. */
function fromJson(label: string, ext = 'stdout'): AgentFailureInput {
  const objects = read(`${label}.${ext}`)
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
  const r = [...objects].reverse().find((o) => o.type === 'result')!;
  const event = [...objects].reverse().find((o) => o.type === 'rate_limit_event' && o.rate_limit_info?.status === 'rejected');
  return {
    exitCode: rc(label),
    timedOut: false,
    isError: r.is_error,
    resultText: r.result,
    subtype: r.subtype,
    errors: r.errors,
    terminalReason: r.terminal_reason,
    apiErrorStatus: r.api_error_status,
    apiErrorType: r.api_error_type,
    apiError: r.api_error,
    rateLimitRejected: event ? { resetsAt: event.rate_limit_info.resetsAt } : null,
  };
}

/** A text-mode run: stdout is the result text. */
function fromText(label: string): AgentFailureInput {
  return { exitCode: rc(label), timedOut: false, isError: false, resultText: read(`${label}.stdout`), stderrTail: read(`${label}.stderr`) };
}

const classify = (input: AgentFailureInput) => classifyAgentFailure(input, { now });

describe('classifyAgentFailure on recorded runs', () => {
  it('a successful run is ok', () => {
    expect(classify(fromJson('happy_json'))).toEqual({ kind: 'ok' });
  });

  it('Invalid API key · Fix external API key → auth, fix names ANTHROPIC_API_KEY', () => {
    const r = classify(fromJson('e401_json'));
    expect(r).toMatchObject({ kind: 'auth', message: 'Invalid API key · Fix external API key' });
    expect(r.kind === 'auth' && r.fix).toMatch(/ANTHROPIC_API_KEY/);
  });

  it.each([
    ['noauth_json', fromJson],
    ['oauth_expired', fromText],
  ] as const)('%s → auth with the login fix', (label, map) => {
    const r = classify(map(label));
    expect(r.kind).toBe('auth');
    expect(r.kind === 'auth' && r.fix).toMatch(/\/login/);
  });

  it.each(['Invalid API key · Please run /login', 'Invalid API key · Run /login', 'OAuth token revoked · Please run /login'])(
    '%s → auth with the login fix',
    (text) => {
      const r = classify({ exitCode: 1, timedOut: false, isError: true, resultText: text });
      expect(r).toMatchObject({ kind: 'auth', message: text });
      expect(r.kind === 'auth' && r.fix).toMatch(/\/login/);
    },
  );

  it('a 401 with unknown wording is still auth', () => {
    expect(classify({ exitCode: 1, timedOut: false, isError: true, apiErrorStatus: 401, resultText: 'Something new' }).kind).toBe('auth');
  });

  it('Credit balance is too low → billing (fatal, with a fix)', () => {
    const r = classify(fromText('credit'));
    expect(r).toMatchObject({ kind: 'billing', message: 'Credit balance is too low' });
    expect(r.kind === 'billing' && r.fix).toMatch(/credits/);
  });

  it.each([
    ['e529_json', 'overloaded'],
    ['e500_json', 'server_error'],
    ['netdown_json', 'network'],
    ['e429_json', 'rate_limited'],
    ['e429u_sj', 'rate_limited'],
    ['hang_json', 'request_timeout'],
  ])('%s → transient %s', (label, reason) => {
    expect(classify(fromJson(label))).toMatchObject({ kind: 'transient', reason });
  });

  it.each([
    ['netdown_text', 'network'],
    ['e429u_text', 'rate_limited'],
  ])('text-mode %s → transient %s', (label, reason) => {
    expect(classify(fromText(label))).toMatchObject({ kind: 'transient', reason });
  });

  it('a subscriber limit → usage_limit with the event reset time', () => {
    const r = classify(fromJson('e429oauth_sj'));
    expect(r).toMatchObject({ kind: 'usage_limit', usageLimit: { source: 'rate_limit_event', resetAt: 1796017539_000 } });
  });

  it('prompt too long → prompt_too_long (next loop starts a fresh session)', () => {
    expect(classify(fromJson('etoolong_json')).kind).toBe('prompt_too_long');
  });

  it('unknown --resume id on stderr → session_not_found', () => {
    const r = classify({ exitCode: 1, timedOut: false, isError: false, resultText: '', stderrTail: read('resume_unknown.stderr') });
    expect(r).toEqual({ kind: 'session_not_found', message: 'No conversation found with session ID: 00000000-0000-4000-8000-000000000000' });
  });
});

describe('classifyAgentFailure rules', () => {
  it('a timeout is a timeout even when the output holds a usage-limit text (exit 124)', () => {
    const r = classify({ exitCode: 124, timedOut: true, isError: false, resultText: "You've hit your 5-hour limit · resets 5:45am (UTC)" });
    expect(r).toEqual({ kind: 'timeout' });
  });

  it('detects an exit-0 is_error API failure (CLI 2.1.49, Bash #134)', () => {
    expect(classify({ exitCode: 0, timedOut: false, isError: true, resultText: 'API Error: Rate limit reached' })).toMatchObject({
      kind: 'transient',
      reason: 'rate_limited',
    });
  });

  it('error subtypes without a result report their errors[]', () => {
    const r = classify({ exitCode: 1, timedOut: false, isError: true, subtype: 'error_max_turns', errors: ['Reached maximum number of turns (2)'] });
    expect(r).toEqual({ kind: 'failed', message: 'Reached maximum number of turns (2)' });
  });

  it('a crash with nothing to say names the exit code', () => {
    expect(classify({ exitCode: 2, timedOut: false, isError: false })).toEqual({ kind: 'failed', message: 'agent exited with code 2' });
  });

  it('does not treat an agent answer mentioning auth words as auth when the run succeeded', () => {
    expect(classify({ exitCode: 0, timedOut: false, isError: false, resultText: 'Not logged in users now see a banner.' })).toEqual({ kind: 'ok' });
  });
});

describe('backoffDelayMs', () => {
  it.each([
    [1, 30_000],
    [2, 60_000],
    [3, 120_000],
    [5, 480_000],
    [6, 900_000],
    [50, 900_000],
    [0, 30_000],
  ])('attempt %i → %i ms', (attempt, ms) => {
    expect(backoffDelayMs(attempt)).toBe(ms);
  });

  it('takes its own base and cap', () => {
    expect(backoffDelayMs(3, { baseMs: 1000, maxMs: 3000 })).toBe(3000);
    expect(backoffDelayMs(2, { baseMs: 1000, maxMs: 3000 })).toBe(2000);
  });
});

describe('usage limits are read from failed runs only', () => {
  const succeeded = (extra: Partial<AgentFailureInput>): AgentFailureInput => ({ exitCode: 0, timedOut: false, isError: false, ...extra });
  const failed = (extra: Partial<AgentFailureInput>): AgentFailureInput => ({ exitCode: 1, timedOut: false, isError: false, ...extra });

  it('a successful run whose answer starts with a limit message is ok', () => {
    const text = "You've hit your 5-hour limit · resets 5:45am (UTC)\nThat is the message; I added a test for it.";
    expect(classifyAgentFailure(succeeded({ resultText: text }), { now })).toEqual({ kind: 'ok' });
  });

  it('a successful run after a rejected rate_limit_event is ok', () => {
    const input = succeeded({ resultText: 'All done.', rateLimitRejected: { resetsAt: now / 1000 + 660, rateLimitType: 'five_hour' } });
    expect(classifyAgentFailure(input, { now })).toEqual({ kind: 'ok' });
  });

  it.each([
    "You've reached your 5-hour usage limit for Claude.\nPlease try again later when your limit resets.",
    'Please try again later when your limit resets.',
    'You have reached your usage limit for Claude.',
    "You've reached your usage limit for Claude Opus 4.5 · resets 3:10pm (America/Chicago)",
    "You've hit your usage limit for Claude Pro. Your plan resets in 3 hours.",
    'usage limit reached|1796017539',
    'Claude AI usage limit reached|1796017539',
    '5-hour limit reached ∙ resets 3am',
    'Session limit resets 4am ∙ contact an admin to keep working',
    "You're out of extra usage · resets Feb 4, 8pm (Europe/Budapest)",
  ])('a failed run printing %j is a usage limit, as text and as a JSON result', (text) => {
    expect(classifyAgentFailure(failed({ resultText: text }), { now }).kind).toBe('usage_limit');
    expect(classifyAgentFailure(failed({ resultText: null, plainText: `${text}\n` }), { now }).kind).toBe('usage_limit');
    // is_error with exit 0 (CLI 2.1.49) is a failed run too.
    expect(classifyAgentFailure(succeeded({ isError: true, resultText: text }), { now }).kind).toBe('usage_limit');
  });

  it('reads the reset time the message states', () => {
    const result = classifyAgentFailure(failed({ resultText: 'usage limit reached|1796017539' }), { now });
    expect(result).toMatchObject({ kind: 'usage_limit', usageLimit: { resetAt: 1796017539_000 } });
    const relative = classifyAgentFailure(failed({ resultText: "You've hit your usage limit for Claude Pro. Your plan resets in 3 hours." }), { now });
    expect(relative).toMatchObject({ usageLimit: { resetAt: now + 3 * 3_600_000 } });
  });
});
