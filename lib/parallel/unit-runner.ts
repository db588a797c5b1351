// The engine of parallel loops, shared by `ralph --parallel N` (the plan's units) and
// `ralph-queue process --parallel N` (the queue's items): up to N units at a time, each as the
// ordinary loop (lib/loop/run-project.ts, unchanged) in its own worktree on its own branch,
// sharing one account (account.ts); a unit that starts only once every unit it comes after has
// merged; a unit that ends done goes through the merge queue one at a time (merge.ts), a
// conflict goes back to its agent once; the run's state written on every change (run-state.ts).
// Ctrl-C, SIGTERM or SIGHUP stop every unit's agent and keep every worktree.

import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { EXIT } from '../errors.js';
import { LoopEvents } from '../loop/events.js';
import { runProject } from '../loop/run-project.js';
import { installStopSignal } from '../loop/stop-signal.js';
import type { Logger, Output } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import type { RalphPaths } from '../state/paths.js';
import type { AccountLedger } from './account.js';
import { readGit, runGit, type GitContext } from './git.js';
import {
  commitUnitLeftovers,
  describeRunBranchMove,
  landUnit,
  prepareUnitBranch,
  listConflictedFiles,
  mergeRunBranchIntoUnit,
  removeMergedUnit,
  type LandResult,
} from './merge.js';
import { stripItemMark } from './plan-units.js';
import { concludeConflictPass, conflictTask } from './conflict-pass.js';
import type { UnitRunnerHooks, UnitRunnerOptions } from './unit-runner-options.js';
import { hasLanded, saveParallelRun, type ParallelRunState, type UnitRecord } from './run-state.js';
import { landFailureReason, landUnitAsPullRequest, pullRequestBase } from './pull-request.js';
import { describeUnitOutcomes } from './summary.js';
import { buildUnitDeps } from './unit-deps.js';
import { describeProgress, openRunConsole, type ProgressLine } from './progress-line.js';
import { excludeWorktrees, openUnitWorktree, seedUnitRalph, unitNote } from './worktrees.js';
import { OwnerHandBack } from './ownership.js';
import { shareVersionQuestions } from './shared-probes.js';

export type { UnitRunnerHooks, UnitRunnerOptions } from './unit-runner-options.js';

type UnitSignals = EventEmitter;

export class UnitRunner {
  private readonly signals = new Map<string, UnitSignals>();
  private readonly started = new Set<string>();
  /** The commit of the run branch each unit's conflict pass merged (this process's passes only). */
  private readonly passBases = new Map<string, string>();
  private mergeQueue: Promise<unknown> = Promise.resolve();
  // git worktree add / prune / remove of two units at once race on .git/worktrees/ (a prune
  // takes away the record of a worktree being added): one at a time.
  private worktreeQueue: Promise<unknown> = Promise.resolve();
  private halting = false;
  /** ralph as root on a user's project: what it makes there is handed to the owner. */
  private readonly ownership: OwnerHandBack;
  /** The combined progress line, on a terminal only. */
  private readonly progress: ProgressLine | undefined;
  /** The console the run and its units write to (through the progress line on a terminal). */
  private readonly console: { stdout: Output; stderr: Output; logger: Logger };
  /** The units' process runner: what each unit's loop asks its agent's CLI at its start is asked once. */
  private readonly processRunner: ProcessRunner;

  constructor(
    private readonly options: UnitRunnerOptions,
    private readonly paths: RalphPaths,
    private readonly git: GitContext,
    private readonly run: ParallelRunState,
    private readonly ledger: AccountLedger,
    private readonly hooks: UnitRunnerHooks,
  ) {
    ({ progress: this.progress, console: this.console } = openRunConsole(options.deps, paths.ralphLog, options.flags.RALPH_VERBOSE === true));
    this.ownership = new OwnerHandBack(options.projectDir, git, (message) => this.log.warn(message));
    this.processRunner = shareVersionQuestions(options.deps.processRunner);
  }

  private get log(): Logger {
    return this.console.logger;
  }

  /** Runs the units to their ends; returns the signal that stopped the run, if one did. */
  async start(): Promise<NodeJS.Signals | undefined> {
    const { deps } = this.options;
    const stop = installStopSignal({
      process: this.options.signals,
      onFirst: (signal) => {
        this.log.warn(`${signal}: stopping every unit's agent; worktrees are kept (${this.hooks.resumeCommand} resumes)`);
        for (const unit of this.signals.values()) unit.emit(signal, signal);
      },
    });
    try {
      await this.runUnits(() => stop.received !== undefined);
    } finally {
      stop.dispose();
    }
    this.save();
    await this.ownership.handBack();
    this.progress?.close();
    deps.stdout.write(
      describeUnitOutcomes(this.run, { interrupted: stop.received !== undefined, rerun: this.hooks.resumeCommand, abandon: this.hooks.abandonCommand }),
    );
    return stop.received;
  }

  /** Starts every ready unit while slots are free, until none is running and none can start. */
  private async runUnits(stopped: () => boolean): Promise<void> {
    await excludeWorktrees(this.git, this.options.projectDir);
    const running = new Map<string, Promise<void>>();
    this.ledger.activeUnits = () => running.size;
    for (;;) {
      while (!stopped() && !this.halting && running.size < this.options.parallel) {
        const next = this.run.units.find((u) => this.isStartable(u));
        if (!next) break;
        this.started.add(next.slug);
        running.set(
          next.slug,
          this.runUnit(next)
            .catch((error: unknown) => {
              this.update(next, { state: 'failed', exit_code: EXIT.couldNotRun, exit_reason: (error as Error).message });
              this.log.error(`Unit ${next.slug}: ${(error as Error).message}`);
            })
            .finally(() => running.delete(next.slug)),
        );
      }
      if (running.size === 0) return;
      await Promise.race(running.values());
    }
  }

  private isStartable(unit: UnitRecord): boolean {
    if (this.started.has(unit.slug) || hasLanded(unit) || unit.state === 'needs-review') return false;
    const ready = (u: UnitRecord | undefined) =>
      u !== undefined && (u.state === 'merged' || (this.hooks.pullRequests !== undefined && u.state === 'in-review'));
    return unit.after.every((slug) => ready(this.run.units.find((u) => u.slug === slug)));
  }

  private async runUnit(unit: UnitRecord): Promise<void> {
    const { projectDir } = this.options;
    const dir = join(projectDir, unit.worktree);
    const stackedOn = this.hooks.pullRequests ? pullRequestBase(this.run, unit) : this.run.run_branch;
    const base = stackedOn !== this.run.run_branch || this.hooks.startFromRunBranch ? `refs/heads/${stackedOn}` : this.run.base_commit;
    await this.inWorktreeQueue(() => openUnitWorktree(this.git, projectDir, unit, base));
    // A unit whose loop ended done before a stop goes straight to the merge queue.
    if (unit.state !== 'merging' && unit.state !== 'conflict') {
      const others = this.run.units.filter((u) => u !== unit);
      seedUnitRalph(this.paths, dir, unit, others, { lines: unit.lines, note: unitNote(unit, this.run.run_branch) });
      const fresh = unit.state === 'pending';
      // Run again after it stopped: the user asked for another try, so its breaker starts closed.
      const retry = unit.state === 'failed';
      this.update(unit, { state: 'running', exit_code: null, exit_reason: '' });
      this.log.info(`Unit ${unit.slug}: ${fresh ? 'started' : 'resumed'} in ${unit.worktree} on ${unit.branch}`);
      const loop = await this.runUnitLoop(unit, { fresh, resetBreaker: retry });
      if (loop.interrupted) return;
      if (loop.exitCode !== EXIT.ok) {
        // Its work so far goes on its branch, where `git log` shows it to whoever looks.
        const kept = await commitUnitLeftovers(
          this.git,
          dir,
          `ralph: work so far on ${stripItemMark(unit.lines[0] ?? unit.item).trim()}\n\nParallel unit ${unit.slug} stopped: ${loop.exitReason}.\n`,
        );
        if (!kept.ok) this.log.warn(`Unit ${unit.slug}: its work stays uncommitted in ${unit.worktree} (${kept.message})`);
        this.update(unit, { state: 'failed', exit_code: loop.exitCode, exit_reason: loop.exitReason });
        this.log.error(`Unit ${unit.slug} stopped (${loop.exitReason}); its work stays on ${unit.branch} in ${unit.worktree}`);
        if (this.options.haltOnFailure) this.haltAll(unit);
        return;
      }
      this.update(unit, { state: 'merging' });
    }
    if (this.hooks.pullRequests) await this.openPullRequest(unit, this.hooks.pullRequests);
    else await this.mergeWithConflictPass(unit);
  }

  /** `--parallel-land pr`: the unit's branch pushed and its pull request opened, in the merge queue's turn. */
  private async openPullRequest(unit: UnitRecord, settings: { draft: boolean }): Promise<void> {
    const { projectDir, deps } = this.options;
    const base = pullRequestBase(this.run, unit);
    const place = { projectDir, runId: this.run.run_id, runBranch: this.run.run_branch, base, draft: settings.draft, redact: deps.redact };
    this.update(unit, { state: 'merging' });
    const landed = await landUnitAsPullRequest(this.git, this.paths, unit, join(projectDir, unit.worktree), place, (tick) => this.inMergeQueue(tick));
    if (landed.kind === 'failed') {
      this.update(unit, { state: 'needs-review', exit_reason: landFailureReason(landed.step, landed.message) });
      this.log.error(`Unit ${unit.slug} needs review: ${landFailureReason(landed.step, landed.message)}; its work stays on ${unit.branch}`);
      return;
    }
    this.update(unit, { state: 'in-review', pr_url: landed.url, exit_reason: `pull request ${landed.url}`, exit_code: EXIT.ok });
    this.log.success(
      `Unit ${unit.slug}: ${landed.existed ? 'its pull request was open already' : 'pull request opened'} (${unit.branch} into ${base}): ${landed.url}`,
    );
    for (const warning of landed.warnings) this.log.warn(`Unit ${unit.slug}: ${warning}`);
    const removed = await this.inWorktreeQueue(() => removeMergedUnit(this.git, projectDir, unit, true));
    if (!removed.ok) this.log.warn(`Unit ${unit.slug}: ${removed.message}`);
  }

  private async mergeWithConflictPass(unit: UnitRecord): Promise<void> {
    const { projectDir } = this.options;
    const dir = join(projectDir, unit.worktree);
    if (unit.state === 'conflict') {
      // Stopped during the conflict pass: take it up where it was.
      if (!(await this.runConflictPass(unit, dir))) return;
    }
    for (;;) {
      this.update(unit, { state: 'merging' });
      const merged = await this.mergeUnit(unit);
      if (merged.kind === 'merged') {
        const removed = await this.inWorktreeQueue(() => removeMergedUnit(this.git, this.options.projectDir, unit));
        if (!removed.ok) this.log.warn(`Unit ${unit.slug}: ${removed.message}`);
        return;
      }
      if (merged.kind === 'failed') {
        this.update(unit, { state: 'needs-review', exit_reason: merged.message });
        this.log.error(`Unit ${unit.slug} needs review: ${merged.message}`);
        return;
      }
      if (unit.conflict_passes >= 1) {
        const moved = await describeRunBranchMove(this.git, this.options.projectDir, this.run.run_branch, this.passBases.get(unit.slug));
        const files = merged.files.join(', ');
        if (moved) {
          this.update(unit, { state: 'needs-review', exit_reason: `merge conflict in ${files}: ${moved} while its agent resolved the earlier conflict` });
          this.log.error(`Unit ${unit.slug} needs review: ${moved} during its agent's conflict pass, and its merge conflicts again (${files})`);
        } else {
          this.update(unit, { state: 'needs-review', exit_reason: `merge conflict in ${files} after its agent's conflict pass` });
          this.log.error(`Unit ${unit.slug} needs review: its merge still conflicts (${files})`);
        }
        return;
      }
      this.update(unit, { state: 'conflict', conflict_passes: unit.conflict_passes + 1, exit_reason: `merge conflict in ${merged.files.join(', ')}` });
      this.log.warn(`Unit ${unit.slug}: merging into ${this.run.run_branch} conflicts in ${merged.files.join(', ')}; its agent resolves it in its worktree`);
      if (!(await this.runConflictPass(unit, dir))) return;
    }
  }

  /**
   * The unit's branch made ready (side by side with the other units' work), then its turn of
   * the merge queue in the main worktree (merge.ts landUnit); the unit's state follows it.
   */
  private async mergeUnit(unit: UnitRecord): Promise<LandResult> {
    const prepared = await prepareUnitBranch(this.git, join(this.options.projectDir, unit.worktree), unit, this.run.run_branch);
    if (!prepared.ok) return { kind: 'failed', message: prepared.message };
    return this.inMergeQueue(async () => {
      const afterMerge = this.hooks.afterMerge;
      this.update(unit, { merge_attempts: Math.max(unit.merge_attempts, unit.conflict_passes) + 1 });
      const landed = await landUnit(
        this.git,
        this.paths,
        { runId: this.run.run_id, runBranch: this.run.run_branch },
        unit,
        (how) => this.log.success(`Unit ${unit.slug} merged into ${this.run.run_branch} (${how})`),
        afterMerge && (() => afterMerge(unit)),
      );
      if (landed.kind !== 'merged') return landed;
      // Merged and ticked: recorded only now, so a crash in between takes up the turn again.
      this.update(unit, { state: 'merged', exit_reason: landed.how, exit_code: EXIT.ok });
      for (const warning of landed.warnings) this.log.warn(`Unit ${unit.slug}: ${warning}`);
      return landed;
    });
  }

  /** The run branch merged into the unit's, markers left for its agent, which runs once more. Returns false when the unit ends here. */
  private async runConflictPass(unit: UnitRecord, dir: string): Promise<boolean> {
    const mergeHead = await runGit(this.git, dir, ['rev-parse', '-q', '--verify', 'MERGE_HEAD']);
    let files: string[];
    if (mergeHead.ok) {
      this.passBases.set(unit.slug, mergeHead.stdout.trim());
      files = await listConflictedFiles(this.git, dir);
    } else {
      this.passBases.set(unit.slug, await readGit(this.git, this.options.projectDir, ['rev-parse', `refs/heads/${this.run.run_branch}`]));
      const start = await mergeRunBranchIntoUnit(this.git, dir, this.run.run_branch, `Merge ${this.run.run_branch} into parallel unit ${unit.slug}\n`);
      if (start.kind === 'clean') return true;
      if (start.kind === 'failed') {
        this.update(unit, { state: 'needs-review', exit_reason: start.message });
        this.log.error(`Unit ${unit.slug} needs review: ${start.message}`);
        return false;
      }
      files = start.files;
    }
    const task = conflictTask(this.run, files);
    seedUnitRalph(
      this.paths,
      dir,
      unit,
      this.run.units.filter((u) => u !== unit),
      { lines: task, note: `${unitNote(unit, this.run.run_branch)}\n\nThis pass resolves a merge conflict first:\n${task.join('\n')}` },
    );
    this.update(unit, { state: 'conflict' });
    // A new task for the unit's loop: what its breaker saw of the earlier one does not count.
    const loop = await this.runUnitLoop(unit, { fresh: true, resetBreaker: true });
    if (loop.interrupted) return false;
    const why = await concludeConflictPass(this.git, dir, { runBranch: this.run.run_branch, slug: unit.slug, files }, loop);
    if (why !== undefined) {
      this.update(unit, { state: 'needs-review', exit_reason: `merge conflict in ${files.join(', ')}: ${why}` });
      this.log.error(`Unit ${unit.slug} needs review: ${why}; its work stays on ${unit.branch}`);
      return false;
    }
    return true;
  }

  private async runUnitLoop(
    unit: UnitRecord,
    { fresh, resetBreaker }: { fresh: boolean; resetBreaker: boolean },
  ): Promise<{ exitCode: number; exitReason: string; interrupted: boolean }> {
    const { deps, projectDir, flags } = this.options;
    const dir = join(projectDir, unit.worktree);
    // What ralph made for this loop (the worktree, its .ralph/, a merge's files) is the owner's.
    await this.ownership.handBack();
    const signals: UnitSignals = new EventEmitter();
    this.signals.set(unit.slug, signals);
    const events = new LoopEvents();
    let exitReason = '';
    let interrupted = false;
    events.on('run:finished', (finished) => {
      exitReason = finished.exitReason;
      interrupted = finished.exitReason === 'interrupted';
    });
    events.on('iteration:completed', () => {
      this.update(unit, { loops: unit.loops + 1, cost_usd: this.ledger.costOf(unit.slug) });
      this.log.info(`Unit ${unit.slug}: loop ${unit.loops} done, $${unit.cost_usd.toFixed(2)} so far`);
    });
    const account = this.ledger.forUnit(unit.slug);
    try {
      const exitCode = await runProject({
        projectDir: dir,
        configDir: projectDir,
        // The unit's outcome is read from ralph's own exit codes, whatever EXIT_CODES says.
        flags: { ...flags, ...this.hooks.unitFlags, ...(resetBreaker ? { CB_AUTO_RESET: true } : {}), EXIT_CODES: 'ralph' },
        deps: buildUnitDeps({ ...deps, ...this.console, processRunner: this.processRunner }, unit.slug, dir, flags.RALPH_VERBOSE === true),
        fresh,
        // An emitter stands in for the process: the orchestrator alone listens to the real signals.
        signals,
        events,
        account,
      });
      return { exitCode, exitReason, interrupted };
    } catch (error) {
      return { exitCode: EXIT.couldNotRun, exitReason: (error as Error).message, interrupted: false };
    } finally {
      this.signals.delete(unit.slug);
      this.ledger.endUnitLoop(unit.slug);
      this.update(unit, { cost_usd: this.ledger.costOf(unit.slug) });
    }
  }

  private inMergeQueue<T>(step: () => Promise<T>): Promise<T> {
    // What the turn wrote (objects, refs, reflogs, merged files) goes back to the project's owner.
    const next = this.mergeQueue.then(step).finally(() => this.ownership.handBack());
    this.mergeQueue = next.catch(() => undefined);
    return next;
  }

  private inWorktreeQueue<T>(step: () => Promise<T>): Promise<T> {
    const next = this.worktreeQueue.then(step).finally(() => this.ownership.handBack());
    this.worktreeQueue = next.catch(() => undefined);
    return next;
  }

  private haltAll(failed: UnitRecord): void {
    this.halting = true;
    this.log.error(`Halting every unit (--halt-on-failure): ${failed.slug} stopped`);
    for (const unit of this.signals.values()) unit.emit('SIGTERM', 'SIGTERM');
  }

  private update(unit: UnitRecord, change: Partial<UnitRecord>): void {
    const before = unit.state;
    Object.assign(unit, change);
    // The ledger (the run's clock and costs) is written when a unit's state changes; a cost is
    // written by the account as it changes.
    if (unit.state !== before) this.save();
    else saveParallelRun(this.hooks.statePath, this.run);
    if (unit.state !== before) this.hooks.onStateChange?.(unit);
    this.progress?.set(describeProgress(this.run));
  }

  save(): void {
    saveParallelRun(this.hooks.statePath, this.run);
    this.ledger.save();
  }

  /** The run's last save, its state file handed to the project's owner when ralph is root. */
  async close(): Promise<void> {
    this.save();
    await this.ownership.handBack();
  }
}
