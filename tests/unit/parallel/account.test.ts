// The account the units of a parallel run share: the budgets count every unit's spend added up
// (the hour's counts only from units in the same hour), each unit's latest spend replacing its
// earlier one, plus what units that will not run again already spent.

import { describe, expect, it } from 'vitest';
import { checkBudgets, initialSpendState, type SpendState } from '../../../lib/limits/spend.js';
import { sumSpends } from '../../../lib/parallel/account.js';

const NOW = Date.parse('2026-12-02T05:30:00Z');

function spent(costUsd: number, loops: number, now = NOW): SpendState {
  const s = initialSpendState(now);
  return { ...s, run: { ...s.run, costUsd, loops, tokens: { input: 100 * loops, output: 10 * loops, cacheRead: 0, cacheCreation: 0 } }, hour: { ...s.hour, tokens: 110 * loops, costUsd } };
}

describe('sumSpends', () => {
  it('adds every unit\'s cost, loops and tokens, and what settled units spent', () => {
    const total = sumSpends([spent(1, 2), spent(2.5, 3)], spent(1, 2), 0.5);
    expect(total.run.costUsd).toBe(4);
    expect(total.run.loops).toBe(5);
    expect(total.run.tokens.input).toBe(500);
    expect(total.hour.tokens).toBe(550);
  });

  it('counts in the hour only the units whose spend is in the same hour', () => {
    const total = sumSpends([spent(1, 1, NOW - 3_600_000), spent(2, 1)], spent(2, 1));
    expect(total.hour.costUsd).toBe(2);
    expect(total.run.costUsd).toBe(3);
  });

  it('stops every unit at --max-cost once all units together reach it', () => {
    const units = [spent(1.5, 1), spent(1.6, 1)];
    const options = { maxCostUsd: 3, startedAt: NOW, loopsDone: 1 };
    expect(checkBudgets(units[0]!, options, NOW)).toBeNull();
    expect(checkBudgets(sumSpends(units, units[0]!), options, NOW)?.budget).toBe('max_cost');
  });
});
