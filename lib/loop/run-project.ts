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
import { recordGitBaseline } from '../platform/git-gateway.js';
import { headCommit } from '../platform/git-operations.js';
import { unwritableReason } from '../state/writable-dir.js';
import { isGitRepository } from '../project/detect-git.js';
import { NOT_A_GIT_REPOSITORY } from '../project/doctor-checks.js';
import { acquireProjectLock } from '../state/lock.js';
import { ensureOwnDirectory } from '../state/no-follow.js';
import { killMarkedProcesses } from '../platform/marked-processes.js';
import { killEscapedProcesses } from '../agent-run/escaped-processes.js';
import { projectPaths } from '../state/paths.js';
import { ledgerPath } from '../state/ledger.js';
import type { StateReadOptions } from '../state/state-file.js';
import { agentCommandOf, chooseAgent } from '../agents/choose-agent.js';
import { AgentDisplay, subscribeLiveView } from '../agent-run/agent-display.js';
import { recordGuardedFiles } from '../containment/guarded-files.js';
import { recordNestedRepositories } from '../containment/git-disarm.js';
import { initRalphSession } from '../sessions/agent-session.js';
import { LoopEvents } from './events.js';
import { completeIssueLifecycle, openIssueLifecycle, resolveIssueRef } from '../lifecycle/github-lifecycle.js';
import { attachNotifications } from './notifications.js';
import { stopOrphanedAgent } from '../agent-run/stop-orphaned-agent.js';
import { removeDeadRuntimeDirs } from '../sandbox/runtime-dir.js';
import { openRunSpend } from '../limits/run-spend.js';
import { resolveAgentCommand, resolveFallbackAgents, withBudgetFlag } from './agent-commands.js';
import { runLoop } from './run-loop.js';
import { summarizeRun } from './run-summary.js';
import { readPlanFile } from '../plan/plan-file.js';
import type { PlanView } from '../plan/fix-plan.js';
import { holdRunState, type Run, type RunSetup, type RunState } from './run.js';
import type { RunRecorder } from '../run-record/run-recorder.js';
import type { SharedAccount } from '../limits/shared-account.js';
import { assertNotLegacyLayout, assertPromptExists, integrityError, missingRequiredPaths, readPromptAndCheckFiles } from './startup.js';
import { endSessionRecord, openSessionRecord, saveUnfinishedAttempt, type OpenedRecord } from '../run-record/record-steps.js';
import { StatusWriter } from './status-writer.js';
import { runCountersOf, subscribeStatus } from './status-subscriber.js';
import { subscribeMetrics } from './metrics-subscriber.js';
import { subscribeProgress } from './progress-subscriber.js';
import { installStopSignal, type StopSignalOptions } from './stop-signal.js';
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
  const { projectDir, deps } = options;
  assertNotLegacyLayout(projectDir);

  const loaded = loadProjectConfig(options);
  const { config } = loaded;
  const sandboxSettings = sandboxSettingsOf(config, loaded.sources.SANDBOX_PROVIDER);
  const issueRef = resolveIssueRef(config, loaded.sources.GITHUB_ISSUE);
  // PROMPT_FILE, FIX_PLAN_FILE and AGENT_FILE resolved once: every step reads these paths. The
  // ledger, outside the project, holds the run's budgets; `.ralph/` holds views of it.
  const paths = { ...projectPaths(projectDir, config), ledger: ledgerPath(projectDir, deps.env, deps.homeDir) };
  const promptFile = paths.prompt;
  assertPromptExists(paths, promptFile);
  const missing = missingRequiredPaths(paths);
  if (missing.length > 0) throw integrityError(missing, EXIT.couldNotRun);
  readPromptAndCheckFiles(paths, promptFile);
  assertWritable(paths.ralphDir);
  ensureOwnDirectory(paths.logsDir);
  ensureOwnDirectory(paths.docsGeneratedDir);

  const agent = chooseAgent(loaded.config);
  // In Docker the agents' CLIs live in the image, not on the host.
  const found = sandboxSettings.provider === 'docker' ? { command: agentCommandOf(config, agent) } : await resolveAgentCommand(options, loaded, agent);
  const agentCommand = found.command;
  const agents = [
    await withBudgetFlag(options, config, { adapter: agent, command: agentCommand }, found),
    ...(await resolveFallbackAgents(options, loaded, agent)),
  ];
  // WORK_DIRS: the folders beside the project the agent also works in (measured in analysis/loop-progress.ts).
  const workDirs = config.WORK_DIRS.map((dir) => resolve(projectDir, dir));
  const sandbox = config.DRY_RUN
    ? previewSandbox(sandboxSettings, { projectDir, deps, workDirs })
    : openSandbox(sandboxSettings, { projectDir, workDirs, ralphDir: paths.ralphDir, deps, packageRoot: PACKAGE_ROOT });
  // What of the configuration an agent cannot honour exactly, said once.
  for (const slot of agents) {
    for (const warning of slot.adapter.startupWarnings({ allowedTools: splitAllowedTools(config.ALLOWED_TOOLS), effort: config.CLAUDE_EFFORT || undefined }))
      deps.logger.warn(warning);
  }
  const lock = acquireProjectLock(paths, { pid: process.pid, logger: deps.logger });
  await stopOrphanedAgent(lock.previous, { logger: deps.logger, graceMs: config.KILL_GRACE_SECONDS * 1000 });
  // The program-running git settings as the user left them: ralph's git calls keep to these.
  await recordGitBaseline(projectDir, deps.env);
  // As --doctor says it: the run works, with less (a queue item or a parallel unit is always in one).
  const inGit = await isGitRepository(projectDir, { runner: deps.processRunner, env: deps.env });
  if (!inGit) deps.logger.warn(`This folder is ${NOT_A_GIT_REPOSITORY.detail} (fix: ${NOT_A_GIT_REPOSITORY.fix})`);
  // Where the project's history stood, so the closing summary can count the run's commits.
  const startHead = inGit ? await headOf(projectDir, deps) : null;
  // A ralph killed with -9 left its sandbox's runtime directory (the private home, copied credentials).
  for (const left of removeDeadRuntimeDirs())
    deps.logger.warn(`Removed the sandbox runtime directory ${left.path} left by pid ${left.pid} (no longer running)`);
  const readOptions: StateReadOptions = { logger: deps.logger, clock: deps.clock };
  // The run's own outputs hear each event first; an embedder's listeners (options.events) after them.
  const events = new LoopEvents();
  if (options.events) events.forwardTo(options.events);
  const startedAt = deps.clock.now();
  const status = new StatusWriter({
    paths,
    clock: deps.clock,
    maxCallsPerHour: config.MAX_CALLS_PER_HOUR,
    maxTokensPerHour: config.MAX_TOKENS_PER_HOUR,
    maxLoops: config.MAX_LOOPS,
    maxCostUsd: config.MAX_COST_USD,
    startedAt,
    sandbox: () => sandbox.status(),
  });
  const display = new AgentDisplay({
    paths,
    clock: deps.clock,
    stdout: deps.stdout,
    live: config.LIVE_OUTPUT,
    showToolArgs: config.LIVE_SHOW_TOOL_ARGS,
    status,
    redact: deps.redact,
    warn: (message) => deps.logger.warn(message),
  });
  const state = holdRunState({ config, paths, readOptions, agents, account: options.account });
  // The run's own files before notifications: a notification never tells of what they do not show yet.
  subscribeStatus(events, status, () => runCountersOf(state));
  subscribeMetrics(events, { paths, logger: deps.logger, account: options.account });
  subscribeProgress(events, status);
  subscribeLiveView(events, display);
  const notifications = config.ENABLE_NOTIFICATIONS
    ? attachNotifications(events, { env: deps.env, redact: deps.redact, processRunner: deps.processRunner, logger: deps.logger, stderr: deps.stderr })
    : undefined;
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
    promptFile,
    events,
    stop,
    agentGroup: lock,
    allowedToolsFrom: loaded.sources.ALLOWED_TOOLS,
    verification: planVerification(config, projectDir, loaded.sources.TEST_COMMAND.detail ?? loaded.sources.TEST_COMMAND.kind, paths.agent),
    account: options.account,
    // Recorded with the lock held: what the user left, before any agent call of this run.
    guarded: recordGuardedFiles(projectDir),
    gitRepositories: await recordNestedRepositories({ projectDir, env: deps.env, processRunner: deps.processRunner }),
    state,
  };

  deps.logger.success(`🚀 Ralph loop starting with ${agent.label}`);
  if (agents.length > 1)
    deps.logger.info(
      `Fallback agents (while the one before is at its usage limit): ${agents
        .slice(1)
        .map((a) => a.adapter.label)
        .join(', ')}`,
    );
  deps.logger.info(`Max calls per hour: ${config.MAX_CALLS_PER_HOUR}`);
  deps.logger.info('Logs: .ralph/logs/ | Docs: .ralph/docs/generated/ | Status: .ralph/status.json');
  try {
    // Inside the try: a write that fails here (disk full) must still release the lock, and a
    // sandbox that fails half-way must still be torn down.
    await sandbox.start();
    state.rate.flush();
    initRalphSession(state.sessions, readOptions);
    deps.logger.info(describeVerificationSetup(setup.verification));
    if (setup.verification.agentMdWarning) deps.logger.warn(setup.verification.agentMdWarning);
    const opened = openSessionRecord(setup, options.fresh ?? false);
    recorder = opened?.recorder;
    if (opened) carryOnFrom(state, opened);
    openRunSpend(setup, recorder);
    // A dry run posts nothing on GitHub.
    const lifecycle = issueRef && !config.DRY_RUN ? await openIssueLifecycle(setup, recorder, issueRef) : undefined;
    const run: Run = { ...setup, recorder, lifecycle };
    const result = await runLoop(run);
    if (result.message) {
      const level = result.exitCode === EXIT.ok ? 'SUCCESS' : result.exitCode === EXIT.limit ? 'WARN' : 'ERROR';
      deps.logger.log(level, result.message);
    }
    if (result.lastAction === 'graceful_exit') await options.beforeCompletion?.();
    // On graceful completion only; never changes the exit code.
    await completeIssueLifecycle(run, lifecycle, result.lastAction);
    // Only a run that stopped for a reason ends its record: a crash (a throw) stays resumable.
    endSessionRecord(run, result);
    const summary = summarizeRun({
      exitCode: result.exitCode,
      exitReason: result.exitReason,
      loopsRun: state.lastLoopRun,
      // A run is named only once it is recorded (a start refused before its first call is not).
      ...(recorder?.saved ? { run: { id: recorder.record.run_id, loops: state.spend.value.spend.run.loops } } : {}),
      plan: planCountsOf(state.plan.view ?? readPlanFile(paths.fixPlan, config.OPTIONAL_SECTIONS)),
      costUsd: state.spend.value.spend.run.costUsd,
      unknownCostCalls: state.spend.value.spend.run.unknownCostLoops,
      elapsedMs: deps.clock.now() - startedAt,
      commits: inGit ? await commitsSince(projectDir, startHead, deps) : null,
      dryRun: config.DRY_RUN,
      next: options.nextCommand,
    });
    deps.logger.log(result.exitCode === EXIT.ok ? 'SUCCESS' : 'INFO', summary.lines.join('\n'));
    status.writeSummary(summary);
    // The plan items ralph still holds open (kept for the next run), said once more at the end.
    if (state.plan.hiddenNote) deps.logger.warn(`At the end of this run: ${state.plan.hiddenNote}`);
    return exitCodeInStyle(result.exitCode, config.EXIT_CODES);
  } finally {
    saveUnfinishedAttempt({ recorder, deps });
    await sandbox.stop();
    // Every stop (end, error, signal): nothing the agent started outlives the run.
    killEscapedProcesses(recorder?.record.run_id, deps.logger);
    stop.dispose();
    lock.release();
    // A last notification (completion, halt) may still be on its way: at most a few seconds.
    await notifications?.settled();
  }
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
  if ((await headOf(projectDir, deps)) === null) return 0;
  const range = start === null ? ['HEAD'] : [`${start}..HEAD`];
  const result = await deps.processRunner.run('git', ['rev-list', '--count', ...range, '--'], {
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
