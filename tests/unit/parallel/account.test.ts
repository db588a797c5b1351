// The account the units of a parallel run share: the budgets count every unit's spend added up
// (the hour's counts only from units in the same hour), each unit's latest spend replacing its
// earlier one, plus what units that will not run again already spent.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../lib/config/schema.js';
import { checkBudgets, initialSpendState, type SpendState } from '../../../lib/limits/spend.js';
import { AccountLedger, sumSpends } from '../../../lib/parallel/account.js';
import type { ParallelLedgerRecord } from '../../../lib/parallel/run-ledger.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';

const NOW = Date.parse('2026-12-02T05:30:00Z');

function spent(costUsd: number, loops: number, now = NOW): SpendState {
  const s = initialSpendState(now);
  return {
    ...s,
    run: { ...s.run, costUsd, loops, tokens: { input: 100 * loops, output: 10 * loops, cacheRead: 0, cacheCreation: 0 } },
    hour: { ...s.hour, tokens: 110 * loops, costUsd },
  };
}

describe('sumSpends', () => {
  it("adds every unit's cost, loops and tokens, and what settled units spent", () => {
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

describe('AccountLedger: one budget for every unit', () => {
  const dirs: string[] = [];
  afterEach(() => {
    while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
  });

  function ledger(previous?: ParallelLedgerRecord, clock = fakeClock(NOW)) {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-account-'));
    dirs.push(dir);
    mkdirSync(join(dir, '.ralph'));
    const saved: ParallelLedgerRecord[] = [];
    const account = new AccountLedger(
      ralphPaths(dir),
      defaultConfig(),
      { logger: createMemoryLogger(), clock },
      { runId: 'p1', previous, save: (record) => saved.push(record) },
    );
    return { account, saved, clock };
  }

  it('gives calls in flight together caps that add up to no more than what is left of --max-cost', () => {
    const { account } = ledger();
    account.activeUnits = () => 3;
    const caps = ['a', 'b', 'c'].map((unit) => account.reserveCall(unit, spent(0, 0), 3)!);
    expect(caps).toEqual([1, 1, 1]);
    // a's call spent 0.5; its next call gets what the others' caps and all spend leave.
    account.endCall('a', spent(0.5, 1));
    expect(account.reserveCall('a', spent(0.5, 1), 3)).toBe(0.5);
  });

  it('never lets units whose agents stop at their caps spend past --max-cost together', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        (steps, active) => {
          const { account } = ledger();
          account.activeUnits = () => active;
          const own = new Map<string, number>();
          const inFlight = new Map<string, number>();
          for (const [n, fraction] of steps) {
            const unit = `u${n}`;
            const cost = own.get(unit) ?? 0;
            const cap = inFlight.get(unit);
            if (cap === undefined) {
              // Budget check first, as the loop does: a unit stops once the account reached --max-cost.
              if (account.total(spent(cost, 0)).run.costUsd >= 2) continue;
              inFlight.set(unit, account.reserveCall(unit, spent(cost, 0), 2)!);
            } else {
              own.set(unit, cost + cap * fraction);
              inFlight.delete(unit);
              account.endCall(unit, spent(cost + cap * fraction, 0));
            }
          }
          const total = [...own.values()].reduce((sum, c) => sum + c, 0) + [...inFlight.values()].reduce((sum, c) => sum + c, 0);
          expect(total).toBeLessThanOrEqual(2 + 1e-5);
        },
      ),
    );
  });

  it("takes each unit's cost and the run time from the ledger, so the time ralph was down is not charged", () => {
    const clock = fakeClock(NOW);
    const { account, saved } = ledger({ run_id: 'p1', active_ms: 5 * 60_000, units: { a: 1.25 } }, clock);
    expect(account.startedAt).toBe(NOW - 5 * 60_000);
    expect(account.costOf('a')).toBe(1.25);
    // A resumed loop reports its own run's spend, earlier sessions included: counted once.
    account.forUnit('a').budgetSpend(spent(1.25, 1));
    account.endCall('a', spent(2, 2));
    expect(account.costOf('a')).toBe(2);
    expect(account.total(spent(0, 0)).run.costUsd).toBe(2);
    clock.advance(60_000);
    account.endUnitLoop('a');
    expect(saved.at(-1)).toEqual({ run_id: 'p1', active_ms: 6 * 60_000, units: { a: 2 } });
  });
});
