// The run record as the loop keeps it: opened at startup (continuing the last unfinished run,
// or a new one — the decision is logged), then every change saved, so a `kill -9` at any moment
// leaves a valid record to resume from. By default each change is saved at once; the loop opens
// it with `saveEachChange: false` and calls flush() at the end of each step that changed it; then
// a new run is first written with its first attempt, so a start that is refused (OPEN breaker,
// missing files) leaves no record behind. A save appends what the logs lack and rewrites the
// small summary (store.ts), so its cost does not grow with the run.
// Text it keeps from outside (output, failure messages) goes through `redact` first. A thin I/O wrapper around the pure functions in this folder.

import { existsSync, readFileSync } from 'node:fs';
import type { Logger } from '../platform/deps.js';
import type { RalphPaths } from '../state/paths.js';
import type { StateReadOptions } from '../state/state-file.js';
import type { VerificationResult } from '../verify/verification-result.js';
import type { SameFailuresState } from '../verify/verification.js';
import { activateRun, finishAttempt, forgetLoggedAttempts, startAttempt, type FinishAttemptOptions } from './attempts.js';
import { summarizeAttemptsForContext } from './attempt-summary.js';
import { gapSample, recordGap } from './gap.js';
import { deriveGoal } from './goal.js';
import { addObservation, recordVerification, type AddObservationOptions } from './observations.js';
import { createRunRecord, newRunIdAfter, runStatusForExit, transitionRun } from './run-record.js';
import { decideRunStart, type RunStartDecision } from './run-start.js';
import { isTerminalStatus, type RunRecord } from './record-schema.js';
import { loadLatestStoredRun, NOTHING_LOGGED, saveRunRecord, type LogPosition } from './record-store.js';

/**
 * Attempts kept in memory once logged: enough for the status's recent agents and a resumed run's
 * context; older ones are read back from the attempts log when a run is loaded.
 */
export const ATTEMPTS_HELD = 50;

export interface OpenRunOptions {
  paths: RalphPaths;
  /** PROMPT_FILE as resolved (the goal falls back to it). */
  promptFile: string;
  optionalSections?: string[];
  testCommand: string | null;
  /** --fresh */
  fresh: boolean;
  /** The run ralph's ledger holds as unfinished: it goes on even when its record is gone or says it ended. */
  unfinished?: string;
  state: StateReadOptions;
  logger: Logger;
  /** false: changes stay in memory until flush(), and a new run reaches the disk only with an attempt. Default true. */
  saveEachChange?: boolean;
  /** Masks secrets in the text kept (output, failure messages, actions, reasons): the record is a plain file. */
  redact?: (text: string) => string;
}

export class RunRecorder {
  private dirty = false;
  /** The record exists on disk (a resumed run, or a new one once saved). */
  private onDisk = true;
  /** What the record's logs on disk hold already. */
  private position: LogPosition = NOTHING_LOGGED;
  /** Logs the start of a new run, when its record first reaches the disk. */
  private announce: (() => void) | undefined;

  private constructor(
    private readonly paths: RalphPaths,
    private current: RunRecord,
    private readonly now: () => number,
    /** The first loop number of this process (loop numbers go on in a resumed run). */
    readonly firstLoop: number,
    readonly decision: RunStartDecision,
    private readonly saveEachChange: boolean,
    private readonly redact: ((text: string) => string) | undefined,
  ) {}

  /** Continue the last unfinished run or start a new one; logs which and why. */
  static open(options: OpenRunOptions): RunRecorder {
    const { paths, state, logger } = options;
    const now = () => state.clock.now();
    let stored = loadLatestStoredRun(paths, state);
    if (options.unfinished && (stored?.record.run_id !== options.unfinished || isTerminalStatus(stored.record.status))) {
      // The agent can delete or rewrite .ralph/sessions/: the run the ledger holds goes on, with a new record.
      const found = stored ? `holds run ${stored.record.run_id} (${stored.record.status})` : 'holds no run';
      logger.warn(`The session record ${found}, but ralph's ledger holds run ${options.unfinished} unfinished; that run goes on`);
      const goal = deriveGoal({
        promptText: readIfPresent(options.promptFile),
        fixPlanText: readIfPresent(paths.fixPlan),
        optionalSections: options.optionalSections,
        testCommand: options.testCommand,
      });
      stored = { record: createRunRecord({ now: now(), goal, runId: options.unfinished }), position: NOTHING_LOGGED };
    }
    const latest = stored?.record;
    const decision = decideRunStart({ latest, fresh: options.fresh, now: now() });
    if (decision.kind === 'resume') {
      const position = saveRunRecord(paths, decision.record, stored?.position);
      logger.info(decision.message);
      const recorder = new RunRecorder(paths, decision.record, now, decision.nextLoop, decision, options.saveEachChange ?? true, options.redact);
      recorder.position = position;
      return recorder;
    }
    if (decision.superseded) saveRunRecord(paths, decision.superseded, stored?.position);
    const goal = deriveGoal({
      promptText: readIfPresent(options.promptFile),
      fixPlanText: readIfPresent(paths.fixPlan),
      optionalSections: options.optionalSections,
      testCommand: options.testCommand,
    });
    const record = createRunRecord({ now: now(), goal, runId: newRunIdAfter(latest?.run_id, now()) });
    const saveEachChange = options.saveEachChange ?? true;
    const position = saveEachChange ? saveRunRecord(paths, record) : NOTHING_LOGGED;
    const recorder = new RunRecorder(paths, record, now, 1, decision, saveEachChange, options.redact);
    recorder.position = position;
    recorder.onDisk = saveEachChange;
    recorder.dirty = !saveEachChange;
    // A run is named once it is recorded: a start refused before any attempt names none.
    const started = `${decision.message}: run ${record.run_id}`;
    if (saveEachChange) logger.info(started);
    else recorder.announce = () => logger.info(started);
    return recorder;
  }

  get record(): RunRecord {
    return this.current;
  }

  /** The record is on disk (false only for a new run that has made no attempt yet). */
  get saved(): boolean {
    return this.onDisk;
  }

  get ended(): boolean {
    return isTerminalStatus(this.current.status);
  }

  /** The loop is running: pending → active. */
  activate(): void {
    this.save(activateRun(this.current, this.now()));
  }

  beginAttempt(loop: number): void {
    this.save(startAttempt(this.current, loop, this.now()));
  }

  recordVerification(loop: number, result: VerificationResult, sameFailures: SameFailuresState): void {
    this.save(recordVerification(this.current, { loop, now: this.now(), result: this.redactResult(result), sameFailures }));
  }

  /** Any other observation (e.g. the agent's exit code, duration and result text: source 'agent'). */
  observe(options: Omit<AddObservationOptions, 'now'>): void {
    const raw = this.redact ? this.redact(options.raw) : options.raw;
    this.save(addObservation(this.current, { ...options, raw, now: this.now() }));
  }

  /** Finish the attempt and take a gap sample (open fix_plan items, failing tests). */
  finishAttempt(options: Omit<FinishAttemptOptions, 'now'> & { openItems: number | null; failingTests: number | null }): void {
    const now = this.now();
    const action = options.action !== undefined && this.redact ? this.redact(options.action) : options.action;
    const finished = finishAttempt(this.current, { ...options, action, now });
    this.save(recordGap(finished, gapSample(options.loop, options.openItems, options.failingTests), now));
  }

  /**
   * The run stopped with this exit code: converged (0), escalated (2), failed (1), exhausted
   * (`budgetSpent`: one of the run's budgets); another limit or an interrupt leaves it active
   * for the next `ralph` to continue. Returns the status now.
   */
  end(exitCode: number, reason: string, budgetSpent = false): RunRecord['status'] {
    const to = budgetSpent ? 'exhausted' : runStatusForExit(exitCode);
    if (to === null || this.ended) return this.current.status;
    const from = to === 'failed' ? this.current : activateRun(this.current, this.now());
    this.save(transitionRun(from, to, this.redact ? this.redact(reason) : reason, this.now()));
    this.flush();
    return this.current.status;
  }

  /** Save the changes not saved yet (with `saveEachChange: false`); nothing when there are none. */
  flush(): void {
    if (!this.dirty) return;
    // A new run that never made an attempt (its start was refused) is not worth a file.
    if (!this.onDisk && this.current.attempts.length === 0) return;
    this.position = saveRunRecord(this.paths, this.current, this.position);
    this.current = forgetLoggedAttempts(this.current, this.position.attempts, ATTEMPTS_HELD);
    this.dirty = false;
    this.onDisk = true;
    this.announce?.();
    this.announce = undefined;
  }

  /** What earlier attempts tried, for the first loop of a resumed run ('' otherwise). */
  resumeContext(maxChars: number): string {
    return this.decision.kind === 'resume' ? summarizeAttemptsForContext(this.current, maxChars) : '';
  }

  private redactResult(result: VerificationResult): VerificationResult {
    const redact = this.redact;
    if (!redact) return result;
    const failures = (list: VerificationResult['failures']) => list.map((f) => ({ name: redact(f.name), message: redact(f.message) }));
    return {
      ...result,
      failures: failures(result.failures),
      commands: result.commands.map((c) => ({ ...c, output: redact(c.output), failures: failures(c.failures) })),
    };
  }

  private save(record: RunRecord): void {
    if (this.saveEachChange) this.position = saveRunRecord(this.paths, record, this.position);
    this.current = this.saveEachChange ? forgetLoggedAttempts(record, this.position.attempts, ATTEMPTS_HELD) : record;
    this.dirty = !this.saveEachChange;
  }
}

function readIfPresent(path: string): string | null {
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}
