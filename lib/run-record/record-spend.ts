// What a run has spent, as its session record tells it: one call per attempt (a cut-off or
// still-running attempt is a call of unknown cost), the attempts' costs and tokens, and the
// time the finished attempts took. The budgets fall back to this when the run's spend file is
// unreadable or missing, and never count less than it. Pure.

import { hourKey } from '../limits/rate-window.js';
import type { SpendState } from '../limits/spend.js';
import type { RunRecord } from './record-schema.js';

export interface RecordSpend {
  spend: SpendState;
  /** Run time the record proves: the finished attempts' durations. */
  activeMs: number;
}

export function spendFromRecord(record: RunRecord, now: number): RecordSpend {
  const key = hourKey(now);
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  let costUsd = 0;
  let unknownCostLoops = 0;
  let hourTokens = 0;
  let hourCost = 0;
  let activeMs = 0;
  for (const attempt of record.attempts) {
    if (attempt.state !== 'finished') unknownCostLoops++;
    costUsd += attempt.cost_usd;
    tokens.input += attempt.tokens.input;
    tokens.output += attempt.tokens.output;
    tokens.cacheRead += attempt.tokens.cache_read;
    tokens.cacheCreation += attempt.tokens.cache_creation;
    activeMs += attempt.duration_ms ?? 0;
    const started = Date.parse(attempt.started_at);
    if (Number.isFinite(started) && hourKey(started) === key) {
      hourTokens += attempt.tokens.input + attempt.tokens.output;
      hourCost += attempt.cost_usd;
    }
  }
  return {
    spend: {
      run: { tokens, costUsd, loops: record.attempts.length, unknownCostLoops, inFlight: false },
      hour: { key, tokens: hourTokens, costUsd: hourCost },
      lastCumulativeBySession: {},
    },
    activeMs,
  };
}
