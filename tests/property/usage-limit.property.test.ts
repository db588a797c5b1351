// Property tests of the usage-limit detector: no false positive on a corpus of real source code,
// documentation and recorded tool output (every line, as the result text); every CLI wording of
// every era is detected with or without a reset clause; a timeout never is; near misses are not.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectUsageLimit, matchUsageLimitWording } from '../../lib/limits/usage-limit.js';

const RUNS = 400;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECORDINGS = join(ROOT, 'tests/fixtures/claude-cli-2.1.332');
const now = Date.parse('2026-11-30T03:10:00Z');
const options = { now, defaultTimeZone: 'UTC' };

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

/** Lines of tool output the agent may see or echo: every tool_result of the recorded runs, and their stderr. */
function recordedToolOutput(): string[] {
  const lines: string[] = [];
  for (const name of readdirSync(RECORDINGS)) {
    const text = readFileSync(join(RECORDINGS, name), 'utf8');
    if (name.endsWith('.stderr')) lines.push(...text.split('\n'));
    if (!name.endsWith('.stdout')) continue;
    for (const line of text.split('\n')) {
      if (!line.startsWith('{"type":"user"')) continue;
      const content = (JSON.parse(line) as { message?: { content?: Array<{ content?: unknown }> } }).message?.content ?? [];
      for (const block of content) if (typeof block.content === 'string') lines.push(...block.content.split('\n'));
    }
  }
  return lines;
}

function corpus(): { lines: string[]; files: number } {
  const files = [
    ...walk(join(ROOT, 'lib'), (p) => p.endsWith('.ts')),
    ...walk(join(ROOT, 'tests/fixtures/fake-claude'), (p) => p.endsWith('.mjs')),
    ...walk(join(ROOT, 'node_modules/typescript/lib'), (p) => p.endsWith('.d.ts')),
    ...walk(join(ROOT, 'node_modules'), (p) => /\/(README|CHANGELOG)\.md$/i.test(p)),
  ];
  const lines = files.flatMap((file) => readFileSync(file, 'utf8').split('\n'));
  return { lines: [...lines, ...recordedToolOutput()], files: files.length };
}

describe('detectUsageLimit: no false positives', () => {
  it('detects nothing in source code, documentation and recorded tool output', () => {
    const { lines, files } = corpus();
    expect(files).toBeGreaterThan(100);
    expect(lines.length).toBeGreaterThan(50_000);
    const hits = lines.filter(
      (line) =>
        detectUsageLimit({ timedOut: false, resultText: line }, options) !== null ||
        // A 429 status alone (an API-key rate limit) is not a usage limit either.
        detectUsageLimit({ timedOut: false, resultText: line, apiErrorStatus: 429 }, options) !== null,
    );
    expect(hits).toEqual([]);
  });

  it('ignores the wording anywhere but the start of the result, and prose that only sounds like it', () => {
    const lead = fc.constantFrom('Sure!', 'I found that', 'The log says:', '> ', '- ', '// ', '"', 'Note -');
    const prose = fc.constantFrom(
      "You've hit your limit of three retries.",
      "You've reached your limit for today's tasks, so I stopped",
      '5-hour limit reached in the test fixture',
      'Session limit resetsX',
      "You're out of extra usage patience",
      'Claude usage limit reachedness',
      'usage limit reached by the cache',
      'The weekly limit reached 80%',
      'Rate limit reached for requests',
      'limit reached',
      'Daily limit is 5',
    );
    fc.assert(
      fc.property(lead, fc.constantFrom(...WORDINGS), fc.string({ maxLength: 20 }), (prefix, wording, tail) => {
        expect(detectUsageLimit({ timedOut: false, resultText: `${prefix} ${wording}${tail}` }, options)).toBeNull();
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(prose, fc.string({ maxLength: 20 }), (text, rest) => {
        expect(matchUsageLimitWording(`${text}${rest.startsWith(' ') ? rest : ` ${rest}`}`)).toBeNull();
      }),
      { numRuns: RUNS },
    );
  });
});

// The CLI's limit messages, every era, each with the
// separators and reset clauses that era printed.
interface Era {
  wordings: string[];
  clauses: string[];
}
const ERAS: Era[] = [
  { wordings: ['Claude AI usage limit reached'], clauses: ['|1796017539', '|1796017539000'] },
  { wordings: ['Claude usage limit reached'], clauses: ['. Your limit will reset at 3pm (America/Bogota).'] },
  {
    wordings: ['5-hour limit reached', 'Session limit reached', 'Weekly limit reached', 'Opus weekly limit reached', 'Usage limit reached'],
    clauses: [' ∙ resets 3am', ' · resets 3pm (Europe/Stockholm) · /upgrade to Max 20x or turn on /extra-usage'],
  },
  { wordings: ['Session limit resets 4am'], clauses: [' ∙ contact an admin to keep working'] },
  {
    wordings: [
      "You've hit your limit",
      "You've hit your session limit",
      'You’ve hit your 5-hour limit',
      "You've hit your weekly limit",
      "You've hit your Opus limit",
      "You've hit your Sonnet limit",
      "You've hit your usage credit limit",
      "You've hit your monthly spend limit",
      "You've reached your Opus limit",
    ],
    clauses: [' · resets 1pm (Europe/Lisbon)', ' · resets 12:50am (America/Los_Angeles)', ' · resets 5:45am (UTC)', ' · resets Feb 4, 8pm (Europe/Budapest)'],
  },
  { wordings: ["You're out of extra usage", "You're out of usage credits"], clauses: [' · resets 9pm', ' · resets Feb 4, 8pm (Europe/Budapest)'] },
];
const WORDINGS = ERAS.flatMap((era) => era.wordings);
const KIND: Record<string, 'usage_limit' | 'extra_usage'> = { "You're out of extra usage": 'extra_usage', "You're out of usage credits": 'extra_usage' };
const limitMessage = fc
  .constantFrom(...ERAS)
  .chain((era) => fc.tuple(fc.constantFrom(...era.wordings), fc.option(fc.constantFrom(...era.clauses), { nil: undefined })));

describe('detectUsageLimit: every wording is found', () => {
  it('detects each wording, alone or with its reset clause, with or without an error prefix', () => {
    fc.assert(
      fc.property(
        limitMessage,
        fc.constantFrom('', 'API Error: ', 'Error: '),
        fc.constantFrom('', '\nmore details on the next line', '  '),
        ([wording, clause], prefix, after) => {
          const text = `${prefix}${wording}${clause ?? ''}${after}`;
          const d = detectUsageLimit({ timedOut: false, resultText: text }, options);
          expect(d).not.toBeNull();
          expect(d!.kind).toBe(KIND[wording] ?? 'usage_limit');
          expect(d!.source).toBe('text');
          if (clause?.includes('reset') || clause?.startsWith('|')) expect(d!.resetAt).toBeGreaterThan(now - 5 * 60_000);
          // A timeout is never a usage limit, whatever the text says (Bash #183).
          expect(detectUsageLimit({ timedOut: true, resultText: text, apiError: 'usage_limit_reached' }, options)).toBeNull();
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('never throws, whatever the signals hold', () => {
    fc.assert(
      fc.property(
        fc.record({
          timedOut: fc.boolean(),
          rateLimitRejected: fc.option(fc.record({ resetsAt: fc.option(fc.double()), rateLimitType: fc.option(fc.string()) }), { nil: null }),
          apiError: fc.option(fc.constantFrom('usage_limit_reached', 'rate_limit', ''), { nil: null }),
          apiErrorStatus: fc.option(fc.constantFrom(429, 500, 0, Number.NaN), { nil: null }),
          resultText: fc.option(fc.string({ unit: 'binary', maxLength: 200 }), { nil: null }),
        }),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (input, at) => {
          const d = detectUsageLimit(input, { now: at, defaultTimeZone: 'UTC' });
          if (d?.resetAt !== undefined) expect(Number.isFinite(d.resetAt)).toBe(true);
          if (input.rateLimitRejected && !input.timedOut) expect(d?.source).toBe('rate_limit_event');
        },
      ),
      { numRuns: RUNS },
    );
  });
});
