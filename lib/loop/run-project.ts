// Composition of one `ralph` run: configuration, startup checks, the single-instance lock, the
// Run the loop steps share (run.ts), signal handling, and the final exit code. Tests call this with
// their own Deps (fake clock, captured output) and a fake `claude` on PATH.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig, type LoadConfigResult } from '../config/load-config.js';
import { formatConfigProblem } from '../config/problems.js';
import { splitAllowedTools } from '../config/schema.js';
import { EXIT, RalphError, exitCodeInStyle } from '../errors.js';
import type { Deps } from '../platform/deps.js';
import type { RalphConfig } from '../config/schema.js';
import type { RalphPaths } from '../state/paths.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { AgentSlot } from '../agent-run/agent-choice.js';
import { recordGitBaseline } from '../platform/git-gateway.js';
import { headCommit, runGitCommand } from '../platform/git-operations.js';
import { unwritableReason } from '../state/writable-dir.js';
import { NO_TASK_YET, NOT_A_GIT_REPOSITORY } from '../project/doctor-checks.js';
import { acquireProjectLock } from '../state/lock.js';
import { ensureOwnDirectory } from '../state/no-follow.js';
import { killMarkedProcesses } from '../platform/marked-processes.js';
import { killEscapedProcesses } from '../agent-run/escaped-processes.js';
import { projectPaths } from '../state/paths.js';
import { batchLedgerWrites, ledgerPath } from '../state/ledger.js';
import { takeOverMovedProjectState } from '../run-record/moved-project-state.js';
import type { StateReadOptions } from '../state/state-file.js';
import { agentCommandOf, chooseAgent } from '../agents/choose-agent.js';
import { recordGuardedFiles } from '../containment/guarded-files.js';
import { guardedBaselinePath, keepGuardedBaseline, removeGuardedBaseline, undoChangesOfDeadRun } from '../containment/guarded-baseline.js';
import { recordNestedRepositories } from '../containment/git-disarm.js';
import { initRalphSession } from '../sessions/agent-session.js';
import { LoopEvents } from './events.js';
import { completeIssueLifecycle, openIssueLifecycle, resolveIssueRef } from '../lifecycle/github-lifecycle.js';
import { stopOrphanedAgent } from '../agent-run/stop-orphaned-agent.js';
import { removeDeadRuntimeDirs } from '../sandbox/runtime-dir.js';
import { openRunSpend } from '../limits/run-spend.js';
import { resolveAgentCommand, resolveFallbackAgents, withBudgetFlag } from './agent-commands.js';
import { runLoop } from './run-loop.js';
import { summarizeRun } from './run-summary.js';
import { readPlanFile } from '../plan/plan-file.js';
import type { PlanView } from '../plan/fix-plan.js';
import { holdRunState, type Run, type RunSetup, type RunState, type RunStop } from './run.js';
import { attachOutputs } from './run-outputs.js';
import type { StatusWriter } from './status-writer.js';
import type { RunRecorder } from '../run-record/run-recorder.js';
import type { SharedAccount } from '../limits/shared-account.js';
import { assertNotLegacyLayout, assertPromptExists, integrityError, missingRequiredPaths, readPromptAndCheckFiles } from './startup.js';
import { endSessionRecord, openSessionRecord, saveUnfinishedAttempt, type OpenedRecord } from '../run-record/record-steps.js';
import { installStopSignal, type StopSignalOptions } from './stop-signal.js';
import { markAgentWritable } from '../platform/find-executable.js';
import { PACKAGE_ROOT } from '../platform/package-root.js';
import { openSandbox, previewSandbox, sandboxSettingsOf } from '../sandbox/open-sandbox.js';
import { describeVerificationSetup, planVerification } from '../verify/verification-setup.js';

export interface RunProjectOptions {
  projectDir: string;
  flags: Record<string, string | number | boolean>;
  deps: Deps;
  fresh?: boolean;
  /** For tests: where SIGINT/SIGTERM handlers are installed (default: the real process). */
  signals?: StopSignalOptions['process'];
  events?: LoopEvents;
  /**
   * On a graceful completion, before the GitHub lifecycle's completion actions: the queue commits
   * the item's leftovers here, so the branch the pull request is opened from holds them.
   */
  beforeCompletion?: () => Promise<void>;
  /** What the run shares with other runs in this process (ralph --parallel: one per unit). */
  account?: SharedAccount;
  /** Where .ralphrc is read (default: projectDir): a parallel unit's worktree reads its project's. */
  configDir?: string;
  /** The closing summary's next command, where the embedder knows better (the demo's project is gone after it). */
  nextCommand?: string;
}

/**
 * What a run needs before it starts, checked without writing anything: the layout, the
 * configuration, the control files and the agent's CLI. A command that changes the user's files
 * before a run (the queue moves the plan aside) calls this first.
 */
export async function preflightProject(options: RunProjectOptions): Promise<void> {
  assertNotLegacyLayout(options.projectDir);
  const loaded = loadProjectConfig(options);
  const paths = projectPaths(options.projectDir, loaded.config);
  assertPromptExists(paths, paths.prompt);
  const missing = missingRequiredPaths(paths);
  if (missing.length > 0) throw integrityError(missing, EXIT.couldNotRun);
  if (loaded.config.DRY_RUN) return;
  const agent = chooseAgent(loaded.config);
  if (sandboxSettingsOf(loaded.config, loaded.sources.SANDBOX_PROVIDER).provider !== 'docker') await resolveAgentCommand(options, loaded, agent);
}

export async function runProject(options: RunProjectOptions): Promise<number> {
  const { deps } = options;
  // Before .ralphrc is read: what a run that died left of its agent's changes to the guarded files is undone.
  undoChangesOfDeadRun({ projectDir: options.projectDir, env: deps.env, homeDir: deps.homeDir, logger: deps.logger, clock: deps.clock });
  const baseline = guardedBaselinePath(ledgerPath(options.projectDir, deps.env, deps.homeDir));
  const prepared = await prepareRun(options);
  const { config, paths, agents, sandbox } = prepared;
  const lock = acquireProjectLock(paths, { pid: process.pid, logger: deps.logger });
  const project = await takeOverProject(options, config, lock.previous);
  const readOptions: StateReadOptions = { logger: deps.logger, clock: deps.clock };
  const startedAt = deps.clock.now();
  const state = holdRunState({ config, paths, readOptions, agents, account: options.account });
  const outputs = attachOutputs(options, prepared, state, startedAt);
  // Opened once the sandbox runs (a run refused before then keeps no record).
  let recorder: RunRecorder | undefined;
  const stop = installStopSignal({
    process: options.signals,
    onFirst: () => state.current?.interrupt(),
    onSecond: () => {
      sandbox.stopNow();
      killMarkedProcesses(recorder?.record.run_id ?? '');
    },
  });
  const setup: RunSetup = {
    config,
    paths,
    deps,
    readOptions,
    sandbox,
    agents,
    promptFile: paths.prompt,
    events: outputs.events,
    stop,
    agentGroup: lock,
    allowedToolsFrom: prepared.loaded.sources.ALLOWED_TOOLS,
    verification: planVerification(config, options.projectDir, testCommandOrigin(prepared.loaded), paths.agent),
    account: options.account,
    ...(await recordWhatTheUserLeft(options, baseline)),
    state,
  };
  announceStart(setup);
  try {
    // Inside the try: a write that fails here (disk full) must still release the lock, and a
    // sandbox that fails half-way must still be torn down.
    await sandbox.start();
    const run = await openRun(options, setup, prepared.issueRef, (opened) => (recorder = opened));
    const result = await runLoop(run);
    await finishRun(options, run, result);
    await summarizeEnd(options, run, result, { ...project, startedAt, status: outputs.status });
    return exitCodeInStyle(result.exitCode, config.EXIT_CODES);
  } finally {
    saveUnfinishedAttempt({ recorder, deps });
    await sandbox.stop();
    // Every stop (end, error, signal): nothing the agent started outlives the run.
    killEscapedProcesses(recorder?.record.run_id, deps.logger);
    stop.dispose();
    removeGuardedBaseline(baseline);
    lock.release();
    prepared.unmarkAgentWritable();
    // A last notification (completion, halt) may still be on its way: at most a few seconds.
    await outputs.notifications?.settled();
  }
}

/** With the lock held, before any agent call: what the user left (guarded files, kept beside the ledger too: guarded-baseline.ts; nested repositories). */
async function recordWhatTheUserLeft({ projectDir, deps }: RunProjectOptions, baseline: string): Promise<Pick<RunSetup, 'guarded' | 'gitRepositories'>> {
  const guarded = recordGuardedFiles(projectDir);
  keepGuardedBaseline(baseline, guarded, deps.logger);
  return {
    guarded,
    gitRepositories: await recordNestedRepositories({ projectDir, env: deps.env, processRunner: deps.processRunner }),
  };
}

function testCommandOrigin(loaded: LoadConfigResult): string {
  return loaded.sources.TEST_COMMAND.detail ?? loaded.sources.TEST_COMMAND.kind;
}

/** The closing summary: logged, and added to status.json; the plan items still held open, said once more. */
async function summarizeEnd(
  options: RunProjectOptions,
  run: Run,
  result: RunStop,
  at: { inGit: boolean; startHead: string | null; startedAt: number; status: StatusWriter },
): Promise<void> {
  const { deps, config, paths, state, recorder } = run;
  const summary = summarizeRun({
    exitCode: result.exitCode,
    exitReason: result.exitReason,
    loopsRun: state.lastLoopRun,
    // A run is named only once it is recorded (a start refused before its first call is not).
    ...(recorder?.saved ? { run: { id: recorder.record.run_id, loops: state.spend.value.spend.run.loops } } : {}),
    plan: planCountsOf(state.plan.view ?? readPlanFile(paths.fixPlan, config.OPTIONAL_SECTIONS)),
    costUsd: state.spend.value.spend.run.costUsd,
    unknownCostCalls: state.spend.value.spend.run.unknownCostLoops,
    elapsedMs: deps.clock.now() - at.startedAt,
    commits: at.inGit ? await commitsSince(options.projectDir, at.startHead, deps) : null,
    dryRun: config.DRY_RUN,
    next: options.nextCommand,
  });
  deps.logger.log(result.exitCode === EXIT.ok ? 'SUCCESS' : 'INFO', summary.lines.join('\n'));
  at.status.writeSummary(summary);
  // The plan items ralph still holds open (kept for the next run), said once more at the end.
  if (state.plan.hiddenNote) deps.logger.warn(`At the end of this run: ${state.plan.hiddenNote}`);
}

/** What a run is prepared with before it holds the project: its configuration, paths, agents and sandbox. */
interface PreparedRun {
  readonly loaded: LoadConfigResult;
  readonly config: RalphConfig;
  readonly paths: RalphPaths;
  readonly issueRef: ReturnType<typeof resolveIssueRef>;
  readonly agents: AgentSlot[];
  readonly sandbox: Sandbox;
  /** Gives back the project's folders to the host-tool lookup once the run ends (platform/find-executable.ts). */
  readonly unmarkAgentWritable: () => void;
}

/** The configuration read, the project's files checked, the agents found and the sandbox chosen. */
async function prepareRun(options: RunProjectOptions): Promise<PreparedRun> {
  const { projectDir, deps } = options;
  assertNotLegacyLayout(projectDir);
  const loaded = loadProjectConfig(options);
  const { config } = loaded;
  const sandboxSettings = sandboxSettingsOf(config, loaded.sources.SANDBOX_PROVIDER);
  const issueRef = resolveIssueRef(config, loaded.sources.GITHUB_ISSUE);
  // PROMPT_FILE, FIX_PLAN_FILE and AGENT_FILE resolved once: every step reads these paths. The
  // ledger, outside the project, holds the run's budgets; `.ralph/` holds views of it.
  const paths = { ...projectPaths(projectDir, config), ledger: ledgerPath(projectDir, deps.env, deps.homeDir) };
  assertPromptExists(paths, paths.prompt);
  const missing = missingRequiredPaths(paths);
  if (missing.length > 0) throw integrityError(missing, EXIT.couldNotRun);
  readPromptAndCheckFiles(paths, paths.prompt);
  assertWritable(paths.ralphDir);
  if (!config.DRY_RUN) takeOverMovedProjectState(projectDir, paths.sessionsDir, deps);
  ensureOwnDirectory(paths.logsDir);
  ensureOwnDirectory(paths.docsGeneratedDir);

  const agent = chooseAgent(loaded.config);
  // In Docker the agents' CLIs live in the image, not on the host.
  const found = sandboxSettings.provider === 'docker' ? { command: agentCommandOf(config, agent) } : await resolveAgentCommand(options, loaded, agent);
  const agents = [
    await withBudgetFlag(options, config, { adapter: agent, command: found.command }, found),
    ...(await resolveFallbackAgents(options, loaded, agent)),
  ];
  // WORK_DIRS: the folders beside the project the agent also works in (measured in analysis/loop-progress.ts).
  const workDirs = config.WORK_DIRS.map((dir) => resolve(projectDir, dir));
  // No host tool (git, tmux, gh, …) is taken from these while the run lasts (platform/find-executable.ts).
  // A start refused before the run keeps them marked: the safe side.
  const unmarkAgentWritable = markAgentWritable([projectDir, ...workDirs]);
  const sandbox = config.DRY_RUN
    ? previewSandbox(sandboxSettings, { projectDir, deps, workDirs })
    : openSandbox(sandboxSettings, {
        projectDir,
        workDirs,
        ralphDir: paths.ralphDir,
        deps,
        packageRoot: PACKAGE_ROOT,
        allowRootAgent: config.ALLOW_ROOT_AGENT,
      });
  // What of the configuration an agent cannot honour exactly, said once.
  for (const slot of agents) {
    for (const warning of slot.adapter.startupWarnings({ allowedTools: splitAllowedTools(config.ALLOWED_TOOLS), effort: config.CLAUDE_EFFORT || undefined }))
      deps.logger.warn(warning);
  }
  return { loaded, config, paths, issueRef, agents, sandbox, unmarkAgentWritable };
}

/** With the lock held: what earlier runs left is cleaned up, and where the project stands is noted. */
async function takeOverProject(
  options: RunProjectOptions,
  config: RalphConfig,
  previousHolder: Parameters<typeof stopOrphanedAgent>[0],
): Promise<{ inGit: boolean; startHead: string | null }> {
  const { projectDir, deps } = options;
  await stopOrphanedAgent(previousHolder, { logger: deps.logger, graceMs: config.KILL_GRACE_SECONDS * 1000 });
  // The program-running git settings as the user left them: ralph's git calls keep to these.
  // Where the repository is was asked for them: the project is in git when it is in a work tree.
  let headFound: string | null | undefined;
  const anchor = await recordGitBaseline(projectDir, deps.env, (head) => (headFound = head));
  // As --doctor says it: the run works, with less (a queue item or a parallel unit is always in one).
  const inGit = anchor?.workTree !== undefined;
  if (!inGit) deps.logger.warn(`This folder is ${NOT_A_GIT_REPOSITORY.detail} (fix: ${NOT_A_GIT_REPOSITORY.fix})`);
  // Where the project's history stood, so the closing summary can count the run's commits: told
  // by the look that fixed the repository, asked when it was fixed before this run.
  const startHead = !inGit ? null : headFound !== undefined ? headFound : await headOf(projectDir, deps);
  // A ralph killed with -9 left its sandbox's runtime directory (the private home, copied credentials).
  for (const left of removeDeadRuntimeDirs())
    deps.logger.warn(`Removed the sandbox runtime directory ${left.path} left by pid ${left.pid} (no longer running)`);
  return { inGit, startHead };
}

function announceStart({ deps, config, agents, paths }: RunSetup): void {
  deps.logger.success(`🚀 Ralph loop starting with ${agents[0]!.adapter.label}`);
  // As --doctor says it: calls would be spent with no plan to tell when the work is done.
  const plan = readPlanFile(paths.fixPlan, config.OPTIONAL_SECTIONS);
  if (plan && plan.blocking.open + plan.blocking.done === 0) deps.logger.warn(`fix_plan.md has ${NO_TASK_YET.detail} (fix: ${NO_TASK_YET.fix})`);
  if (agents.length > 1)
    deps.logger.info(
      `Fallback agents (while the one before is at its usage limit): ${agents
        .slice(1)
        .map((a) => a.adapter.label)
        .join(', ')}`,
    );
  deps.logger.info(`Max calls per hour: ${config.MAX_CALLS_PER_HOUR}`);
  deps.logger.info('Logs: .ralph/logs/ | Docs: .ralph/docs/generated/ | Status: .ralph/status.json');
}

/**
 * With the sandbox running: the state files written, the session record, spend and issue opened.
 * `onRecord` hears of the record as soon as it is open (what is torn down on a failure needs it).
 */
async function openRun(
  options: RunProjectOptions,
  setup: RunSetup,
  issueRef: PreparedRun['issueRef'],
  onRecord: (recorder: RunRecorder | undefined) => void,
): Promise<Run> {
  const { deps, config, state } = setup;
  // The rate window, the breaker and the run's spend each change the ledger here: one write of it.
  const opened = batchLedgerWrites(() => {
    state.rate.flush();
    initRalphSession(state.sessions, setup.readOptions);
    deps.logger.info(describeVerificationSetup(setup.verification));
    if (setup.verification.agentMdWarning) deps.logger.warn(setup.verification.agentMdWarning);
    const record = openSessionRecord(setup, options.fresh ?? false);
    onRecord(record?.recorder);
    if (record) carryOnFrom(state, record);
    openRunSpend(setup, record?.recorder);
    return record;
  });
  // A dry run posts nothing on GitHub.
  const lifecycle = issueRef && !config.DRY_RUN ? await openIssueLifecycle(setup, opened?.recorder, issueRef) : undefined;
  return { ...setup, recorder: opened?.recorder, lifecycle };
}

/** The loop stopped for a reason: its message, the work committed, the issue told, the record ended. */
async function finishRun(options: RunProjectOptions, run: Run, result: RunStop): Promise<void> {
  const { logger } = run.deps;
  if (result.message) {
    const level = result.exitCode === EXIT.ok ? 'SUCCESS' : result.exitCode === EXIT.limit ? 'WARN' : 'ERROR';
    logger.log(level, result.message);
  }
  if (result.lastAction === 'graceful_exit') await options.beforeCompletion?.();
  // On graceful completion only; never changes the exit code.
  await completeIssueLifecycle(run, run.lifecycle, result.lastAction);
  // Only a run that stopped for a reason ends its record: a crash (a throw) stays resumable.
  endSessionRecord(run, result);
}

function planCountsOf(plan: PlanView | null): { done: number; open: number } | null {
  return plan ? { done: plan.blocking.done, open: plan.blocking.open } : null;
}

const GIT_TIMEOUT_MS = 30_000;

/** The commit HEAD names, or null (an unborn branch: no commit yet). */
async function headOf(projectDir: string, deps: Deps): Promise<string | null> {
  return (await headCommit({ runner: deps.processRunner, cwd: projectDir, env: deps.env })) ?? null;
}

/** Commits reachable from HEAD now that were not from the run's start (all of them on a branch born in the run). */
async function commitsSince(projectDir: string, start: string | null, deps: Deps): Promise<number | null> {
  const head = await headOf(projectDir, deps);
  // HEAD where the run found it: nothing to count.
  if (head === null || head === start) return 0;
  const range = start === null ? ['HEAD'] : [`${start}..HEAD`];
  const result = await runGitCommand(deps.processRunner, ['rev-list', '--count', ...range, '--'], {
    cwd: projectDir,
    env: deps.env,
    timeoutMs: GIT_TIMEOUT_MS,
    gitReadsNoContent: true,
  });
  const count = Number(result.stdout.trim());
  return result.code === 0 && Number.isInteger(count) ? count : null;
}

// Node's recursive mkdir reports a read-only .ralph/ as ENOENT; say what is wrong before it.
function assertWritable(dir: string): void {
  const why = unwritableReason(dir);
  if (why === null) return;
  throw new RalphError('ralph_dir_unwritable', `Cannot write to ${dir}: ${why}`, { hint: 'make .ralph/ writable, then run ralph again' });
}

function loadProjectConfig(options: RunProjectOptions): LoadConfigResult {
  const result = loadConfig({
    projectDir: options.configDir ?? options.projectDir,
    homeDir: options.deps.homeDir,
    env: options.deps.env,
    flags: options.flags,
  });
  for (const warning of result.warnings) options.deps.logger.warn(formatConfigProblem(warning));
  const read = [
    existsSync(join(options.configDir ?? options.projectDir, '.ralphrc')) ? '.ralphrc' : undefined,
    existsSync(join(options.deps.homeDir, '.ralphrc')) ? '~/.ralphrc' : undefined,
  ].filter((file) => file !== undefined);
  if (read.length > 0) options.deps.logger.info(`Loaded configuration from ${read.join(' and ')}`);
  return result;
}

/** The loop number and verification state of the record just opened (a resumed run's), into the run's state. */
function carryOnFrom(state: RunState, opened: OpenedRecord): void {
  state.loopCount = opened.loopsBefore;
  state.verify = opened.verify;
  state.resumeContext = opened.resumeContext;
}
