// Persistence for the limits: the hourly call/token window in the Bash tool's files, a pending
// usage-limit wait (ours; survives a restart) and the run's spend (ours), each with the ledger
// as the record and the file in .ralph/ as its view. Pure decisions live in this room; this file
// only maps them to files. Every value read back is range-checked (lib/breaker/guard-ranges.ts):
// the agent can write these files, so a value ralph could not have written is reset with a warning.

import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import { checkRateWindow, usageWaitProblem } from '../breaker/guard-ranges.js';
import { initialSpendState, type SpendState } from './spend.js';
import { hourKey, hourKeyAtOffset, initialRateWindow, realTimeSince, rollWindowByRealTime, type ClockAnchor, type RateWindowState } from './rate-window.js';
import type { Clock } from '../platform/clock.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { HeldState } from '../state/held-state.js';
import { readIntegerFile, readTrimmedText, writeIntegerFile } from '../state/integer-file.js';
import { afterLedgerWrites, readLedger, saveLedgerRate, saveLedgerRun, type LedgerRate } from '../state/ledger.js';
import type { RalphPaths } from '../state/paths.js';
import { warnRange } from '../state/range-warning.js';
import { readStateFile, type StateReadOptions, type StateReadResult } from '../state/state-file.js';
import { runStateFileSchema, usageWaitFileSchema, type RunStateFile, type UsageWaitFile } from '../state/schemas.js';

/** The hourly window from the Bash tool's three files, range-checked (the loop writes the fix back). */
export function loadRateWindow(paths: RalphPaths, options: StateReadOptions): RateWindowState {
  const checked = checkRateWindow(
    {
      calls: readIntegerFile(paths.callCount, options),
      tokens: readIntegerFile(paths.tokenCount, options),
      lastReset: readTrimmedText(paths.lastReset) ?? '',
    },
    options.clock.now(),
  );
  const files = { calls: paths.callCount, tokens: paths.tokenCount, lastReset: paths.lastReset };
  for (const { field, problem } of checked.problems) warnRange(files[field], problem, options);
  const kept = paths.ledger ? readLedger(paths.ledger, (message) => options.logger.warn(message))?.rate : undefined;
  if (!kept) return checked.value;
  const window = windowFromLedger(kept, options.clock);
  const views = checked.value;
  if (views.calls !== kept.calls || views.tokens !== kept.tokens || views.lastReset !== kept.lastReset) {
    options.logger.warn(
      `.ralph/.call_count, .token_count and .last_reset (${views.calls} calls, ${views.tokens} tokens, hour ${views.lastReset || 'none'}) differ from ralph's ledger (${kept.calls} calls, ${kept.tokens} tokens, hour ${kept.lastReset}); the ledger counts`,
    );
  }
  return window;
}

/**
 * The ledger's window as of now. Within one boot the real time since it was saved is the uptime
 * between the two readings: while that is still the ledger's hour the counts carry on into the
 * hour the wall clock names, so a clock set back or forward opens no new hour.
 */
export function windowFromLedger(kept: LedgerRate, clock: Clock): RateWindowState {
  const window = { calls: kept.calls, tokens: kept.tokens, lastReset: kept.lastReset };
  const anchor =
    kept.boot_id !== undefined && kept.uptime_ms !== undefined ? { wallMs: kept.wall_ms, bootId: kept.boot_id, uptimeMs: kept.uptime_ms } : undefined;
  const realNow = realTimeSince(anchor, clock.boot?.());
  if (realNow === undefined) return window;
  // The hour as named where the window was saved: a time zone changed since renames the hour, not ends it.
  const named = kept.utc_offset_min === undefined ? hourKey(realNow) : hourKeyAtOffset(realNow, kept.utc_offset_min);
  return named === kept.lastReset ? { ...window, lastReset: hourKey(clock.now()) } : window;
}

/**
 * The run's hourly window, held in memory and written through to its files and the ledger. It
 * keeps an anchor: a wall time in the timeline its hour is named in, with the boot reading taken
 * then. Rolling it into a new hour goes by the real time since (the uptime), so a wall clock set
 * back or forward during the run opens no new hour; the window then takes the wall clock's name
 * for its hour, and a new anchor.
 */
export class HeldRateWindow extends HeldState<RateWindowState> {
  constructor(
    paths: RalphPaths,
    loaded: RateWindowState,
    private readonly clock: Clock,
    private readonly anchor: { value?: ClockAnchor } = { value: anchorNow(clock) },
  ) {
    super(loaded.lastReset ? loaded : initialRateWindow(clock.now()), (next, previous) => saveRateWindow(paths, next, previous, clock, anchor.value));
  }

  /** Opens a new hour when real time has reached one (rollWindowByRealTime). */
  roll(): void {
    const next = rollWindowByRealTime(this.value, this.clock.now(), this.anchor.value, this.clock.boot?.());
    // A new hour, or a new name for it: named in the wall clock's timeline from now on.
    if (next.lastReset !== this.value.lastReset || !this.anchor.value) this.anchor.value = anchorNow(this.clock);
    this.set(next);
  }
}

/** The window held for the run (a fresh one when no file names an hour), written through to its files and the ledger. */
export function holdRateWindow(paths: RalphPaths, loaded: RateWindowState, clock: Clock): HeldRateWindow {
  return new HeldRateWindow(paths, loaded, clock);
}

/**
 * Writes the ledger's window, then the Bash tool's three files, each only when its value changed
 * (or `previous` is unknown). The ledger's wall time is in the timeline the window's hour is
 * named in (`anchor`'s, moved on by the uptime since), beside the boot reading of now.
 */
export function saveRateWindow(paths: RalphPaths, window: RateWindowState, previous?: RateWindowState, clock?: Clock, anchor?: ClockAnchor): void {
  if (paths.ledger && clock) {
    const reading = clock.boot?.();
    const boot = reading ? { boot_id: reading.bootId, uptime_ms: reading.uptimeMs } : {};
    const wallMs = realTimeSince(anchor, reading) ?? clock.now();
    saveLedgerRate(paths.ledger, paths.projectDir, { ...window, wall_ms: wallMs, ...boot, utc_offset_min: new Date(wallMs).getTimezoneOffset() });
  }
  afterLedgerWrites(() => {
    if (previous?.calls !== window.calls) writeIntegerFile(paths.callCount, window.calls);
    if (previous?.tokens !== window.tokens) writeIntegerFile(paths.tokenCount, window.tokens);
    if (previous?.lastReset !== window.lastReset) writeIntegerFile(paths.lastReset, Number(window.lastReset) || 0);
  });
}

function anchorNow(clock: Clock): ClockAnchor | undefined {
  const reading = clock.boot?.();
  return reading ? { wallMs: clock.now(), bootId: reading.bootId, uptimeMs: reading.uptimeMs } : undefined;
}

export type { UsageWaitFile };

/**
 * The pending usage-limit wait. One that ends later than the longest wait ralph chooses
 * (`maxWaitMs`, from the configured margin and fallback) is dropped with a warning, and its
 * file removed unless the reader is read-only.
 */
export function loadUsageWait(paths: RalphPaths, options: StateReadOptions, maxWaitMs: number): UsageWaitFile | undefined {
  const wait = readStateFile(paths.usageLimitWait, usageWaitFileSchema.nullable(), null, options).value;
  if (!wait) return undefined;
  const problem = usageWaitProblem(wait, options.clock.now(), maxWaitMs);
  if (!problem) return wait;
  warnRange(paths.usageLimitWait, `resume_at ${problem}; not waiting for it`, options);
  if (options.quarantine !== false) clearUsageWait(paths);
  return undefined;
}

export function saveUsageWait(paths: RalphPaths, wait: UsageWaitFile): void {
  writeJsonAtomic(paths.usageLimitWait, wait);
}

export function clearUsageWait(paths: RalphPaths): void {
  rmSync(paths.usageLimitWait, { force: true });
}

/** A run's own pending wait, held and written through: saved when set, its file removed when forgotten. */
export function holdUsageWait(paths: RalphPaths, loaded: UsageWaitFile | undefined): HeldState<UsageWaitFile | undefined> {
  return new HeldState(loaded, (next) => (next ? saveUsageWait(paths, next) : clearUsageWait(paths)));
}

/** `.run_state` (ours): the spend of one run, kept across restarts while that run goes on. */
export type RunSpend = RunStateFile;

export function newRunSpend(now: number, runId?: string): RunSpend {
  return { ...(runId ? { run_id: runId } : {}), started_at_ms: now, active_ms: 0, spend: initialSpendState(now) };
}

/** Writes the run's spend to the ledger (the run stays unfinished until it ends) and `.run_state`, its view. */
export function saveRunSpend(paths: RalphPaths, state: RunSpend): void {
  if (paths.ledger && state.run_id) saveLedgerRun(paths.ledger, paths.projectDir, state, true);
  afterLedgerWrites(() => writeJsonAtomic(paths.runState, state));
}

/** The run ended (its record holds an end status): a restart starts a new run whatever `.ralph/` says. */
export function endLedgerRun(paths: RalphPaths, state: RunSpend): void {
  if (paths.ledger && state.run_id) saveLedgerRun(paths.ledger, paths.projectDir, state, false);
}

/** The run the ledger holds as unfinished, if any: it is resumed whatever `.ralph/sessions/` says. */
export function loadUnfinishedRun(paths: RalphPaths, options: StateReadOptions): RunSpend | undefined {
  const kept = paths.ledger ? readLedger(paths.ledger, (message) => options.logger.warn(message))?.run : undefined;
  return kept?.unfinished ? kept.state : undefined;
}

/**
 * The run state, or why there is none: missing, or unreadable (then set aside with a warning
 * naming it). The ledger's run wins over `.run_state`, which is only its view.
 */
export function loadRunSpend(paths: RalphPaths, options: StateReadOptions): { value: RunSpend | undefined; status: StateReadResult<unknown>['status'] } {
  const result = readStateFile(paths.runState, runStateFileSchema.nullable(), null, options);
  const view = result.value ?? undefined;
  const kept = paths.ledger ? readLedger(paths.ledger, () => undefined)?.run?.state : undefined;
  if (!kept) return { value: view, status: result.status };
  if (JSON.stringify(view) !== JSON.stringify(kept)) {
    const what = view
      ? `holds run ${view.run_id ?? '(none)'} with ${view.spend.run.loops} call(s)`
      : result.status === 'corrupt'
        ? 'is unreadable'
        : 'is missing';
    options.logger.warn(
      `${basename(paths.runState)} ${what}; ralph's ledger holds run ${kept.run_id} with ${kept.spend.run.loops} call(s), and the ledger counts`,
    );
  }
  return { value: kept, status: 'ok' };
}

/**
 * The run's spend and budgets, carried across restarts (.run_state, run-spend.ts), and the run's
 * clock. Unsaved until the session record says which run this is (and for good in a dry run);
 * then the run's own, written through, never read back mid-run.
 */
export class HeldRunSpend {
  #held: HeldState<RunSpend>;
  #clockStart: number;

  constructor(now: number) {
    this.#held = new HeldState(newRunSpend(now), () => undefined);
    this.#clockStart = now;
  }

  get value(): RunSpend {
    return this.#held.value;
  }

  /** When the run's clock started, as if it had run without a break: now minus its run time so far. */
  get clockStart(): number {
    return this.#clockStart;
  }

  /** The run's clock starts now (a run that keeps no record). */
  startClock(now: number): void {
    this.#clockStart = now;
  }

  /** The run's own spend, once the session record says which run this is: saved now, and with every change. */
  adopt(paths: RalphPaths, kept: RunSpend, now: number): void {
    this.#clockStart = now - kept.active_ms;
    this.#held = new HeldState(kept, (next) => saveRunSpend(paths, next));
    this.#held.flush();
  }

  /** The new spend with the run time so far, written through to `.run_state`. */
  hold(spend: SpendState, now: number): void {
    this.#held.set({ ...this.#held.value, spend, active_ms: Math.max(0, now - this.#clockStart) });
  }
}
