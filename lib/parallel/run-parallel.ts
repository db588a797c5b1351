// `ralph --parallel N`: the plan's units run side by side, each as the ordinary loop in its own
// worktree (lib/loop/run-project.ts, unchanged), sharing one account (account.ts); a unit that
// ends done goes through the merge queue one at a time (merge.ts), a conflict goes back to its
// agent once, and the run's state is written on every change (run-state.ts) so Ctrl-C, SIGTERM
// or `kill -9` leave a run that `ralph --parallel N` resumes.

import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { isPlanComplete, parseFixPlan } from '../core/fix-plan.js';
import { EXIT, RalphError } from '../errors.js';
import { LoopEvents } from '../loop/events.js';
import { runProject } from '../loop/run-project.js';
import { integrityError, missingRequiredPaths } from '../loop/startup.js';
import { exitCodeForSignal, installStopSignal, type StopSignalOptions } from '../loop/stop-signal.js';
import type { Deps } from '../platform/deps.js';
import { acquireProjectLock } from '../state/lock.js';
import { projectPaths, type RalphPaths } from '../state/paths.js';
import { ledgerPath } from '../state/ledger.js';
import type { StateReadOptions } from '../state/state-file.js';
import { AccountLedger } from './account.js';
import { readGit, type GitContext } from './git.js';
import { commitUnitLeftovers, hasConflictMarkers, isConflictResolved, landUnit, listConflictedFiles, mergeRunBranchIntoUnit, removeMergedUnit, type LandResult } from './merge.js';
import { findPlanUnits, stripItemMark, type PlanUnit } from './plan-units.js';
import { loadParallelRun, saveParallelRun, type ParallelRunState, type UnitRecord, type UnitState } from './run-state.js';
import { buildUnitDeps } from './unit-deps.js';
import { describeDryRunUnits, describeUnitOutcomes } from './summary.js';
import { assertNoTrackedChanges, openUnitWorktree, readRunBranch, seedUnitRalph, unitNote } from './worktrees.js';

export interface RunParallelOptions {
  projectDir: string;
  flags: Record<string, string | number | boolean>;
  deps: Deps;
  /** Units at a time, 2 to 16. */
  parallel: number;
  haltOnFailure: boolean;
  /** For tests: where SIGINT/SIGTERM handlers are installed (default: the real process). */
  signals?: StopSignalOptions['process'];
}

type UnitSignals = EventEmitter & { exit: (code?: number) => never };

export async function runParallel(options: RunParallelOptions): Promise<number> {
  const { projectDir, deps } = options;
  const loaded = loadConfig({ projectDir, homeDir: deps.homeDir, env: deps.env, flags: options.flags });
  const { config } = loaded;
  // The account's hourly window is kept in the project's ledger, outside the project.
  const paths = { ...projectPaths(projectDir, config), ledger: ledgerPath(projectDir, deps.env, deps.homeDir) };
  const missing = missingRequiredPaths(paths);
  if (missing.length > 0) throw integrityError(missing, EXIT.couldNotRun);
  const found = findPlanUnits(readFileSync(paths.fixPlan, 'utf8'), config.OPTIONAL_SECTIONS);
  if (!found.ok) throw new RalphError('parallel_plan', found.problem, { hint: 'fix the (after: …) clause in fix_plan.md, then run ralph --parallel again' });
  const state: StateReadOptions = { logger: deps.logger, clock: deps.clock };
  if (config.DRY_RUN) {
    const resumed = loadParallelRun(paths, { ...state, quarantine: false });
    deps.stdout.write(describeDryRunUnits(resumed && !resumed.finished ? resumed.units : found.units, options.parallel));
    return EXIT.ok;
  }
  const git: GitContext = { runner: deps.processRunner, env: deps.env };
  const runBranch = await readRunBranch(git, projectDir);
  await assertNoTrackedChanges(git, projectDir);
  const lock = acquireProjectLock(paths, { pid: process.pid, logger: deps.logger });
  try {
    const run = await openParallelRun(paths, state, git, runBranch, found.units, deps);
    if (!run) {
      deps.logger.success('fix_plan.md has no open item: nothing to run');
      return EXIT.ok;
    }
    return await new ParallelRun(options, paths, git, run, config.OPTIONAL_SECTIONS, new AccountLedger(paths, config, state, Date.parse(run.started_at) || deps.clock.now(), settledCost(run))).start();
  } finally {
    lock.release();
  }
}

/** The unfinished run to resume, or a new one for the plan's open units (undefined: none). */
async function openParallelRun(paths: RalphPaths, state: StateReadOptions, git: GitContext, runBranch: string, units: PlanUnit[], deps: Deps): Promise<ParallelRunState | undefined> {
  const previous = loadParallelRun(paths, state);
  if (previous && !previous.finished) {
    if (previous.run_branch !== runBranch) {
      throw new RalphError('parallel_branch', `The unfinished parallel run ${previous.run_id} merges into ${previous.run_branch}, and ${runBranch} is checked out`, {
        hint: `git switch ${previous.run_branch}, then run ralph --parallel again`,
      });
    }
    const open = previous.units.filter((u) => u.state !== 'merged').length;
    deps.logger.info(`Resuming parallel run ${previous.run_id} on ${runBranch}: ${open} of ${previous.units.length} unit(s) not merged yet`);
    return previous;
  }
  if (units.length === 0) return undefined;
  const now = deps.clock.now();
  const runId = `p${new Date(now).toISOString().replace(/[-:]/g, '').slice(0, 15)}`;
  const run: ParallelRunState = {
    run_id: runId,
    base_commit: await readGit(git, paths.projectDir, ['rev-parse', 'HEAD']),
    run_branch: runBranch,
    started_at: new Date(now).toISOString(),
    finished: false,
    units: units.map((u) => ({
      slug: u.slug,
      item: u.item,
      lines: u.lines,
      after: u.after,
      branch: `ralph/${runId}/${u.slug}`,
      worktree: join('.ralph', 'worktrees', u.slug),
      state: 'pending' as UnitState,
      loops: 0,
      cost_usd: 0,
      exit_code: null,
      exit_reason: '',
      conflict_passes: 0,
    })),
  };
  saveParallelRun(paths, run);
  deps.logger.info(`Parallel run ${runId}: ${run.units.length} unit(s) from fix_plan.md, merged into ${runBranch}`);
  return run;
}

function settledCost(run: ParallelRunState): number {
  return run.units.filter((u) => u.state === 'merged' || u.state === 'needs-review').reduce((sum, u) => sum + u.cost_usd, 0);
}

class ParallelRun {
  private readonly signals = new Map<string, UnitSignals>();
  private readonly started = new Set<string>();
  private mergeQueue: Promise<unknown> = Promise.resolve();
  private halting = false;

  constructor(
    private readonly options: RunParallelOptions,
    private readonly paths: RalphPaths,
    private readonly git: GitContext,
    private readonly run: ParallelRunState,
    private readonly optionalSections: string[],
    private readonly ledger: AccountLedger,
  ) {}

  async start(): Promise<number> {
    const { deps } = this.options;
    const stop = installStopSignal({
      process: this.options.signals,
      onFirst: (signal) => {
        deps.logger.warn(`${signal}: stopping every unit's agent; worktrees are kept (ralph --parallel ${this.options.parallel} resumes)`);
        for (const unit of this.signals.values()) unit.emit(signal, signal);
      },
      onSecond: this.options.signals ? () => undefined : (signal) => process.exit(exitCodeForSignal(signal)),
    });
    try {
      await this.runUnits(() => stop.received !== undefined);
    } finally {
      stop.dispose();
    }
    this.save();
    deps.stdout.write(describeUnitOutcomes(this.run, this.options.projectDir));
    if (stop.received) return exitCodeForSignal(stop.received);
    return this.decideExitCode();
  }

  /** Starts every ready unit while slots are free, until none is running and none can start. */
  private async runUnits(stopped: () => boolean): Promise<void> {
    const running = new Map<string, Promise<void>>();
    for (;;) {
      while (!stopped() && !this.halting && running.size < this.options.parallel) {
        const next = this.run.units.find((u) => this.isStartable(u));
        if (!next) break;
        this.started.add(next.slug);
        running.set(next.slug, this.runUnit(next).catch((error: unknown) => {
          this.update(next, { state: 'failed', exit_code: EXIT.couldNotRun, exit_reason: (error as Error).message });
          this.options.deps.logger.error(`Unit ${next.slug}: ${(error as Error).message}`);
        }).finally(() => running.delete(next.slug)));
      }
      if (running.size === 0) return;
      await Promise.race(running.values());
    }
  }

  private isStartable(unit: UnitRecord): boolean {
    if (this.started.has(unit.slug) || unit.state === 'merged' || unit.state === 'needs-review') return false;
    return unit.after.every((slug) => this.run.units.find((u) => u.slug === slug)?.state === 'merged');
  }

  private async runUnit(unit: UnitRecord): Promise<void> {
    const { deps, projectDir } = this.options;
    const dir = join(projectDir, unit.worktree);
    await openUnitWorktree(this.git, projectDir, unit, this.run.base_commit);
    // A unit whose loop ended done before a stop goes straight to the merge queue.
    if (unit.state !== 'merging' && unit.state !== 'conflict') {
      const others = this.run.units.filter((u) => u !== unit);
      seedUnitRalph(this.paths, dir, unit, others, { lines: unit.lines, note: unitNote(unit, this.run.run_branch) });
      const fresh = unit.state === 'pending';
      this.update(unit, { state: 'running', exit_code: null, exit_reason: '' });
      deps.logger.info(`Unit ${unit.slug}: started in ${unit.worktree} on ${unit.branch}`);
      const loop = await this.runUnitLoop(unit, fresh);
      if (loop.interrupted) return;
      if (loop.exitCode !== EXIT.ok) {
        // Its work so far goes on its branch, where `git log` shows it to whoever looks.
        const kept = await commitUnitLeftovers(this.git, dir, `ralph: work so far on ${stripItemMark(unit.lines[0] ?? unit.item).trim()}\n\nParallel unit ${unit.slug} stopped: ${loop.exitReason}.\n`);
        if (!kept.ok) deps.logger.warn(`Unit ${unit.slug}: its work stays uncommitted in ${unit.worktree} (${kept.message})`);
        this.update(unit, { state: 'failed', exit_code: loop.exitCode, exit_reason: loop.exitReason });
        deps.logger.error(`Unit ${unit.slug} stopped (${loop.exitReason}); its work stays on ${unit.branch} in ${unit.worktree}`);
        if (this.options.haltOnFailure) this.haltAll(unit);
        return;
      }
      this.update(unit, { state: 'merging' });
    }
    await this.mergeWithConflictPass(unit);
  }

  private async mergeWithConflictPass(unit: UnitRecord): Promise<void> {
    const { deps, projectDir } = this.options;
    const dir = join(projectDir, unit.worktree);
    if (unit.state === 'conflict') {
      // Stopped during the conflict pass: take it up where it was.
      if (!(await this.runConflictPass(unit, dir))) return;
    }
    for (;;) {
      this.update(unit, { state: 'merging' });
      const merged = await this.inMergeQueue(() => this.mergeUnit(unit));
      if (merged.kind === 'merged') {
        const removed = await removeMergedUnit(this.git, this.options.projectDir, unit);
        if (!removed.ok) deps.logger.warn(`Unit ${unit.slug}: ${removed.message}`);
        return;
      }
      if (merged.kind === 'failed') {
        this.update(unit, { state: 'needs-review', exit_reason: merged.message });
        deps.logger.error(`Unit ${unit.slug} needs review: ${merged.message}`);
        return;
      }
      if (unit.conflict_passes >= 1) {
        this.update(unit, { state: 'needs-review', exit_reason: `merge conflict in ${merged.files.join(', ')} after the agent's pass` });
        deps.logger.error(`Unit ${unit.slug} needs review: its merge still conflicts (${merged.files.join(', ')})`);
        return;
      }
      this.update(unit, { state: 'conflict', conflict_passes: unit.conflict_passes + 1, exit_reason: `merge conflict in ${merged.files.join(', ')}` });
      deps.logger.warn(`Unit ${unit.slug}: merging into ${this.run.run_branch} conflicts in ${merged.files.join(', ')}; its agent resolves it in its worktree`);
      if (!(await this.runConflictPass(unit, dir))) return;
    }
  }

  /** The merge step, in the main worktree (merge.ts landUnit); the unit's state follows it. */
  private async mergeUnit(unit: UnitRecord): Promise<LandResult> {
    const { deps, projectDir } = this.options;
    const landed = await landUnit(this.git, this.paths, { runId: this.run.run_id, runBranch: this.run.run_branch }, unit, join(projectDir, unit.worktree), (how) => {
      this.update(unit, { state: 'merged', exit_reason: `merged (${how})`, exit_code: EXIT.ok });
      deps.logger.success(`Unit ${unit.slug} merged into ${this.run.run_branch} (${how})`);
    });
    if (landed.kind === 'merged') for (const warning of landed.warnings) deps.logger.warn(`Unit ${unit.slug}: ${warning}`);
    return landed;
  }

  /** The run branch merged into the unit's, markers left for its agent, which runs once more. Returns false when the unit ends here. */
  private async runConflictPass(unit: UnitRecord, dir: string): Promise<boolean> {
    const { deps } = this.options;
    const inMerge = (await this.git.runner.run('git', ['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: dir, env: this.git.env })).code === 0;
    let files: string[];
    if (inMerge) {
      files = await listConflictedFiles(this.git, dir);
    } else {
      const start = await mergeRunBranchIntoUnit(this.git, dir, this.run.run_branch, `Merge ${this.run.run_branch} into parallel unit ${unit.slug}\n`);
      if (start.kind === 'clean') return true;
      if (start.kind === 'failed') {
        this.update(unit, { state: 'needs-review', exit_reason: start.message });
        deps.logger.error(`Unit ${unit.slug} needs review: ${start.message}`);
        return false;
      }
      files = start.files;
    }
    const mergedItems = this.run.units.filter((u) => u.state === 'merged').map((u) => u.item);
    const task = [
      `- [ ] Resolve the merge conflicts in: ${files.join(', ')}`,
      `  - ${this.run.run_branch} was merged into this branch and conflicts with it; git's conflict markers are in those files.`,
      `  - The other side was for: ${mergedItems.length > 0 ? mergedItems.join('; ') : 'changes made on ' + this.run.run_branch}.`,
      '  - Keep what both sides were for, remove every conflict marker, make the tests pass, then tick this item.',
    ];
    seedUnitRalph(this.paths, dir, unit, this.run.units.filter((u) => u !== unit), { lines: task, note: `${unitNote(unit, this.run.run_branch)}\n\nThis pass resolves a merge conflict first:\n${task.join('\n')}` });
    this.update(unit, { state: 'conflict' });
    const loop = await this.runUnitLoop(unit, true);
    if (loop.interrupted) return false;
    // Markers left: nothing is committed, the worktree stays mid-merge for whoever reviews it.
    const markersLeft = hasConflictMarkers(dir, files);
    const committed = loop.exitCode === EXIT.ok && !markersLeft
      ? await commitUnitLeftovers(this.git, dir, `Merge ${this.run.run_branch} into parallel unit ${unit.slug}\n\nConflicts resolved by the unit's agent.\n`)
      : { ok: false as const, message: '' };
    if (!committed.ok || !(await isConflictResolved(this.git, dir, files))) {
      const why = loop.exitCode !== EXIT.ok ? `the conflict pass stopped (${loop.exitReason})` : markersLeft ? 'conflict markers are left' : `the resolution could not be committed (${committed.ok ? 'conflicts left' : committed.message})`;
      this.update(unit, { state: 'needs-review', exit_reason: `merge conflict in ${files.join(', ')}: ${why}` });
      deps.logger.error(`Unit ${unit.slug} needs review: ${why}; its work stays on ${unit.branch}`);
      return false;
    }
    return true;
  }

  private async runUnitLoop(unit: UnitRecord, fresh: boolean): Promise<{ exitCode: number; exitReason: string; interrupted: boolean }> {
    const { deps, projectDir, flags } = this.options;
    const dir = join(projectDir, unit.worktree);
    const signals = Object.assign(new EventEmitter(), {
      exit: ((code?: number) => {
        throw new Error(`unit ${unit.slug} asked to exit the process (${code})`);
      }) as (code?: number) => never,
    });
    this.signals.set(unit.slug, signals);
    const events = new LoopEvents();
    let exitReason = '';
    let interrupted = false;
    events.on('run:finished', (finished) => {
      exitReason = finished.exitReason;
      interrupted = finished.exitReason === 'interrupted';
    });
    events.on('iteration:completed', () => this.update(unit, { loops: unit.loops + 1 }));
    const account = this.ledger.forUnit(unit.slug);
    try {
      const exitCode = await runProject({
        projectDir: dir,
        configDir: projectDir,
        // The unit's outcome is read from ralph's own exit codes, whatever EXIT_CODES says.
        flags: { ...flags, EXIT_CODES: 'ralph' },
        deps: buildUnitDeps(deps, unit.slug, dir, flags.RALPH_VERBOSE === true),
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
      const spend = this.ledger.spendOf(unit.slug);
      if (spend) this.update(unit, { cost_usd: Math.max(unit.cost_usd, spend.run.costUsd) });
    }
  }

  private inMergeQueue<T>(step: () => Promise<T>): Promise<T> {
    const next = this.mergeQueue.then(step);
    this.mergeQueue = next.catch(() => undefined);
    return next;
  }

  private haltAll(failed: UnitRecord): void {
    this.halting = true;
    this.options.deps.logger.error(`Halting every unit (--halt-on-failure): ${failed.slug} stopped`);
    for (const unit of this.signals.values()) unit.emit('SIGTERM', 'SIGTERM');
  }

  private update(unit: UnitRecord, change: Partial<UnitRecord>): void {
    Object.assign(unit, change);
    this.save();
  }

  private save(): void {
    saveParallelRun(this.paths, this.run);
  }

  /** 0 when every unit merged and the plan is complete; 2 halted or needs review; 3 stopped at a limit. */
  private decideExitCode(): number {
    const units = this.run.units;
    if (units.every((u) => u.state === 'merged')) {
      this.run.finished = true;
      this.save();
      const plan = parseFixPlan(readFileSync(this.paths.fixPlan, 'utf8'), this.optionalSections);
      return isPlanComplete(plan) ? EXIT.ok : EXIT.halted;
    }
    const stopped = units.filter((u) => u.state === 'failed');
    if (units.some((u) => u.state === 'needs-review') || stopped.some((u) => u.exit_code === EXIT.halted)) return EXIT.halted;
    if (stopped.some((u) => u.exit_code === EXIT.limit)) return EXIT.limit;
    if (stopped.some((u) => u.exit_code === EXIT.couldNotRun)) return EXIT.couldNotRun;
    return EXIT.halted;
  }
}

