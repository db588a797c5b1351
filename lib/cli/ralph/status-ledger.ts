// `ralph --status`: the run's figures (calls, cost, tokens, the hourly window, the breaker) as ralph's ledger
// outside the project holds them, and every view in `.ralph/` that says otherwise. The agent can
// write `.ralph/`; the ledger is what the guards count, so the status shows the ledger and names
// a view that differs. Read-only, like the rest of the status.

import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { formatUsd } from '../../limits/spend.js';
import type { RateWindowState } from '../../limits/rate-window.js';
import type { BreakerState } from '../../breaker/circuit-breaker.js';
import { loadBreaker } from '../../breaker/breaker-store.js';
import { loadRateWindow, loadRunSpend, type RunSpend } from '../../limits/limits-store.js';
import { systemClock, type Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/deps.js';
import { readProjectLock } from '../../state/lock.js';
import { isProcessAlive } from '../../state/process-alive.js';
import { loadStatus } from '../../state/store.js';
import { readLedger } from '../../state/ledger.js';
import type { RalphPaths } from '../../state/paths.js';
import type { StatusFile } from '../../state/schemas.js';
import type { StateReadOptions } from '../../state/state-file.js';

/** What `--status --json` shows under `ledger` (null when ralph has no ledger for the project yet). */
export interface LedgerStatus {
  file: string;
  rate: { calls_this_hour: number; tokens_this_hour: number; window: string } | null;
  run: { run_id: string | null; unfinished: boolean; loops: number; cost_usd: number; tokens: number; unknown_cost_calls: number } | null;
  breaker: { state: string; consecutive_no_progress: number; total_opens: number } | null;
  /** Each view in `.ralph/` that differs from the ledger, and how (the ledger counts). */
  differences: string[];
}

export interface LedgerFigures {
  /** The hourly window the loop would count (the ledger's when it has one, else the views'). */
  rate: RateWindowState;
  /** The run's spend the loop would count (the ledger's when it has one, else `.run_state`). */
  run: RunSpend | null;
  /** The breaker the loop would start from (the ledger's when it has one; null: none at all). */
  breaker: BreakerState | null;
  ledger: LedgerStatus | null;
  differences: string[];
}

/**
 * Reads the window and the run through the loop's own readers (the ledger wins over the views),
 * and compares status.json's copy of the figures with the ledger's. A loop that is running may
 * be a step ahead of its status.json, so that comparison is made only when none runs.
 */
export function readLedgerFigures(paths: RalphPaths, status: StatusFile | null, running: boolean, options: StateReadOptions): LedgerFigures {
  const differences: string[] = [];
  const noting: StateReadOptions = { ...options, logger: warningCollector(differences) };
  const rate = loadRateWindow(paths, noting);
  const run = loadRunSpend(paths, noting).value ?? null;
  const kept = paths.ledger && existsSync(paths.ledger) ? readLedger(paths.ledger, (message) => differences.push(message)) : undefined;
  const breaker = kept?.breaker || existsSync(paths.circuitBreakerState) ? loadBreaker(paths, noting) : null;
  if (!kept || !paths.ledger) return { rate, run, breaker, ledger: null, differences };
  const keptRun = kept.run ? { state: kept.run.state, unfinished: kept.run.unfinished } : null;
  const ledger: LedgerStatus = {
    file: paths.ledger,
    rate: kept.rate ? { calls_this_hour: rate.calls, tokens_this_hour: rate.tokens, window: rate.lastReset } : null,
    run: keptRun
      ? {
          run_id: keptRun.state.run_id ?? null,
          unfinished: keptRun.unfinished,
          loops: keptRun.state.spend.run.loops,
          cost_usd: roundedCost(keptRun.state),
          tokens: runTokens(keptRun.state),
          unknown_cost_calls: keptRun.state.spend.run.unknownCostLoops,
        }
      : null,
    breaker: kept.breaker
      ? { state: kept.breaker.state, consecutive_no_progress: kept.breaker.consecutive_no_progress, total_opens: kept.breaker.total_opens }
      : null,
    differences,
  };
  if (status && !running) differences.push(...statusFileDifferences(paths, status, ledger));
  return { rate, run, breaker, ledger, differences };
}

/** The ledger's figures for plain `ralph --status`, read as `--status --json` reads them (null: no ledger). */
export function ledgerStatus(paths: RalphPaths, clock: Clock = systemClock): LedgerStatus | null {
  const readOnly: StateReadOptions = { logger: warningCollector([]), clock, quarantine: false };
  const status = loadStatus(paths, readOnly);
  const lock = readProjectLock(paths.lock);
  const present = status.status === 'ok' || status.status === 'recovered' ? status.value : null;
  return readLedgerFigures(paths, present, lock ? isProcessAlive(lock.pid) : false, readOnly).ledger;
}

/** All the tokens of a run (input, output and cache). */
export function runTokens(run: RunSpend): number {
  const t = run.spend.run.tokens;
  return t.input + t.output + t.cacheRead + t.cacheCreation;
}

/** The lines plain `ralph --status` prints after status.json: the ledger's figures and each view that differs. */
export function formatLedgerStatus(ledger: LedgerStatus): string {
  const lines = ["Ralph's ledger (outside the project; the files in .ralph/ are its views):"];
  if (ledger.rate) lines.push(`  Hour ${ledger.rate.window}: ${ledger.rate.calls_this_hour} call(s), ${ledger.rate.tokens_this_hour} token(s)`);
  if (ledger.run) {
    const { run } = ledger;
    lines.push(
      `  Run ${run.run_id ?? '(no id)'}${run.unfinished ? ' (unfinished)' : ''}: ${run.loops} call(s), $${formatUsd(run.cost_usd)}, ${run.tokens} token(s)`,
    );
  }
  if (ledger.breaker) {
    const { breaker } = ledger;
    lines.push(`  Circuit breaker: ${breaker.state}, ${breaker.consecutive_no_progress} loop(s) without progress, ${breaker.total_opens} open(s)`);
  }
  for (const difference of ledger.differences) lines.push(`Note: ${difference}`);
  return `${lines.join('\n')}\n`;
}

function statusFileDifferences(paths: RalphPaths, status: StatusFile, ledger: LedgerStatus): string[] {
  const pairs: Array<[string, number | undefined, number | undefined]> = [];
  if (ledger.rate) {
    pairs.push(['calls_made_this_hour', status.calls_made_this_hour, ledger.rate.calls_this_hour]);
    pairs.push(['tokens_used_this_hour', status.tokens_used_this_hour, ledger.rate.tokens_this_hour]);
  }
  if (ledger.run) {
    pairs.push(['run_loops', status.run_loops, ledger.run.loops]);
    pairs.push(['run_cost_usd', status.run_cost_usd, ledger.run.cost_usd]);
    pairs.push(['run_tokens', status.run_tokens, ledger.run.tokens]);
  }
  const differing = pairs.filter(([, view, kept]) => view !== undefined && view !== kept);
  if (differing.length === 0) return [];
  const says = differing.map(([name, view]) => `${name} ${view}`).join(', ');
  const holds = differing.map(([name, , kept]) => `${name} ${kept}`).join(', ');
  return [`${basename(paths.status)} says ${says}; ralph's ledger holds ${holds}, and the ledger counts`];
}

function roundedCost(run: RunSpend): number {
  // Sums of floats (0.026999999999999996): rounded as status.json's copy is.
  return Number(run.spend.run.costUsd.toFixed(6));
}

/** A logger that keeps the readers' warnings (nothing is printed: stdout may be JSON). */
export function warningCollector(warnings: string[]): Logger {
  const ignore = () => {};
  return {
    log: (level, message) => void (level === 'WARN' && warnings.push(message)),
    info: ignore,
    warn: (message) => void warnings.push(message),
    error: ignore,
    success: ignore,
    debug: ignore,
  };
}
