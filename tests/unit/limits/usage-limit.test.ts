import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectUsageLimit, matchUsageLimitWording } from '../../../lib/limits/usage-limit.js';
import { useTimeZone } from '../../helpers/time-zone.js';

const recordings = new URL('../../fixtures/claude-cli-2.1.332/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, recordings), 'utf8');
const lines = (name: string) =>
  read(name)
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
const resultOf = (name: string) => [...lines(name)].reverse().find((o) => o.type === 'result')!;

const now = Date.parse('2026-11-30T03:10:00Z');
const opts = { now };
useTimeZone('UTC');

describe('detectUsageLimit: recorded CLI output, in the contract’s order', () => {
  it('prefers the rejected rate_limit_event and its resetsAt (stream-json, subscriber)', () => {
    const event = [...lines('e429oauth_sj.stdout')].reverse().find((o) => o.type === 'rate_limit_event')!;
    const result = resultOf('e429oauth_sj.stdout');
    const d = detectUsageLimit(
      {
        timedOut: false,
        rateLimitRejected: { resetsAt: event.rate_limit_info.resetsAt, rateLimitType: event.rate_limit_info.rateLimitType },
        apiError: result.api_error,
        apiErrorStatus: result.api_error_status,
        resultText: result.result,
      },
      opts,
    );
    expect(d).toEqual({
      kind: 'usage_limit',
      source: 'rate_limit_event',
      resetAt: 1796017539_000,
      limitType: 'five_hour',
      rawText: "You've hit your 5-hour limit · resets 5:45am (UTC)",
    });
  });

  it('then api_error usage_limit_reached on the result, with the reset time from its text', () => {
    const result = resultOf('e429oauth_sj.stdout');
    const d = detectUsageLimit({ timedOut: false, apiError: result.api_error, apiErrorStatus: result.api_error_status, resultText: result.result }, opts);
    expect(d).toMatchObject({ kind: 'usage_limit', source: 'api_error', resetAt: Date.parse('2026-11-30T05:45:00Z') });
  });

  it.each(['e429oauth_text.stdout', 'e429_overage.stdout', 'e429_seven_day.stdout', 'e429_seven_day_opus.stdout'])(
    'then the text of %s: waits until 05:45 UTC, not a fixed hour',
    (name) => {
      const d = detectUsageLimit({ timedOut: false, resultText: read(name) }, opts);
      expect(d).toMatchObject({ kind: 'usage_limit', source: 'text', resetAt: Date.parse('2026-11-30T05:45:00Z') });
    },
  );

  it.each(['e429_json.stdout', 'e429u_sj.stdout'])('an API-key 429 (%s) is a rate limit, not a usage limit', (name) => {
    const r = resultOf(name);
    expect(detectUsageLimit({ timedOut: false, apiErrorStatus: r.api_error_status, resultText: r.result }, opts)).toBeNull();
  });

  it.each(['e429u_text.stdout', 'e429_text.stdout'])('the text-mode API-key 429 (%s) is not a usage limit', (name) => {
    expect(detectUsageLimit({ timedOut: false, resultText: read(name) }, opts)).toBeNull();
  });

  it('never calls a timeout a usage limit, whatever the text or event says (Bash #183)', () => {
    const text = read('e429oauth_text.stdout');
    expect(detectUsageLimit({ timedOut: true, resultText: text, apiError: 'usage_limit_reached', rateLimitRejected: { resetsAt: 1 } }, opts)).toBeNull();
  });
});

describe('detectUsageLimit: every era’s wording', () => {
  it.each([
    ['Claude AI usage limit reached|1750708800', 'usage_limit', 1750708800_000],
    ['Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).', 'usage_limit', Date.parse('2026-11-30T20:00:00Z')],
    ['5-hour limit reached ∙ resets 3am', 'usage_limit', Date.parse('2026-12-01T03:00:00Z')],
    ['Session limit reached ∙ resets 4am', 'usage_limit', Date.parse('2026-11-30T04:00:00Z')],
    ['Weekly limit reached ∙ resets 4am', 'usage_limit', Date.parse('2026-11-30T04:00:00Z')],
    ['Opus weekly limit reached ∙ resets 4am', 'usage_limit', Date.parse('2026-11-30T04:00:00Z')],
    ['Usage limit reached ∙ resets 4am', 'usage_limit', Date.parse('2026-11-30T04:00:00Z')],
    ['Session limit resets 4am ∙ contact an admin to keep working', 'usage_limit', Date.parse('2026-11-30T04:00:00Z')],
    ['5-hour limit reached · resets 3pm (Europe/Stockholm) · /upgrade to Max 20x or turn on /extra-usage', 'usage_limit', Date.parse('2026-11-30T14:00:00Z')],
    ["You've hit your limit · resets 1pm (Europe/Lisbon)", 'usage_limit', Date.parse('2026-11-30T13:00:00Z')],
    ['You’ve hit your session limit · resets 12:50am (America/Los_Angeles)', 'usage_limit', Date.parse('2026-11-30T08:50:00Z')],
    ["You've hit your limit - resets Feb 7, 11am (Asia/Seoul)/login to switch", 'usage_limit', Date.parse('2027-02-07T02:00:00Z')],
    ["You've hit your usage credit limit", 'usage_limit', undefined],
    ["You're out of extra usage · resets 9pm", 'extra_usage', Date.parse('2026-11-30T21:00:00Z')],
    ["You're out of extra usage · resets Feb 4, 8pm (Europe/Budapest)", 'extra_usage', Date.parse('2027-02-04T19:00:00Z')],
    ["You're out of usage credits", 'extra_usage', undefined],
    ["API Error: You've hit your limit · resets 1pm (UTC)", 'usage_limit', Date.parse('2026-11-30T13:00:00Z')],
  ])('%s', (text, kind, resetAt) => {
    const d = detectUsageLimit({ timedOut: false, resultText: `${text}\n` }, opts);
    expect(d?.kind).toBe(kind);
    expect(d?.source).toBe('text');
    expect(d?.resetAt).toBe(resetAt);
  });
});

describe('detectUsageLimit: no false positives', () => {
  it.each([
    // The agent's own final answers.
    'I added a check for the usage limit reached case in src/limits.ts.',
    "You've hit your limit of three retries in the parser; I raised it to five.",
    'Rate limit reached handling is now covered by tests.',
    'Token limit reached. I split the file and continued.',
    'The 5-hour limit reached warning is shown in the banner now.',
    'Fixed: the session limit resets at midnight instead of at noon.',
    // Source code.
    'if (/usage.*limit.*reached/i.test(text)) return "Claude AI usage limit reached|" + epoch;',
    'const MSG = "You\'ve hit your 5-hour limit · resets 5:45am (UTC)";',
    'throw new Error(`5-hour limit reached ∙ resets ${time}`)',
    // Tool output echoed in a longer answer.
    "The log contains:\nYou've hit your 5-hour limit · resets 5:45am (UTC)\nbut that is from a fixture.",
    '$ grep -r "limit" docs/\ndocs/limits.md: Usage limit reached ∙ resets 4am',
    '',
  ])('%j', (text) => {
    expect(detectUsageLimit({ timedOut: false, resultText: text }, opts)).toBeNull();
  });

  it('does not call a plain 429 with ordinary text a usage limit', () => {
    expect(detectUsageLimit({ timedOut: false, apiErrorStatus: 429, resultText: 'API Error: Rate limit reached' }, opts)).toBeNull();
  });

  it('matchUsageLimitWording reports the first line only', () => {
    expect(matchUsageLimitWording("  You've hit your weekly limit · resets 5:45am (UTC)\nextra")).toEqual({
      kind: 'usage_limit',
      line: "You've hit your weekly limit · resets 5:45am (UTC)",
    });
  });
});
