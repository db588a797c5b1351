// The loop: before each agent call the guards run in the Bash tool's order — integrity, circuit
// breaker, usage-limit wait, hourly rate window, budgets, exit gate — then one iteration, then
// the outcome (and the verification gate, when the loop changed files) decides whether to go
// on, wait, or stop with an exit code that says why.

import { usageLimitWaitSettings } from '../limits/usage-limit-settings.js';
import { formatHaltBox } from '../breaker/breaker-messages.js';
import { backoffDelayMs } from '../agents/agent-failure.js';
import { formatCountdown } from '../limits/countdown.js';
import { countCall } from '../limits/rate-window.js';
import { computeUsageLimitWait } from '../limits/reset-time.js';
import { EXIT } from '../errors.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { resetRunSession, sessionLabel, touchRalphSession } from '../sessions/agent-session.js';
import { createBackup } from './backup.js';
import { batchLedgerWrites, ledgerPath } from '../state/ledger.js';
import { describeDryRun } from './dry-run.js';
import { pruneAgentLogs, type LogMemory } from './log-retention.js';
import { startExitEvidence } from '../exit-gate/exit-evidence.js';
import { postProgressIfDue } from '../lifecycle/github-lifecycle.js';
import { runIteration } from './iteration.js';
import type { IterationResult } from './call-outcome.js';
import { reportLoopMetrics } from './metrics-step.js';
import { beginCallSpend, unknownCostHalt } from '../limits/run-spend.js';
import { forgetUsageWait, holdRunUsageWait } from '../limits/shared-account.js';
import { CONTINUE, stopRun as stop, type Run, type RunStop, type StepResult } from './run.js';
import { beginAttemptRecord, finishAttemptRecord } from '../run-record/record-steps.js';
import { askUsageLimitChoice } from '../limits/usage-limit-prompt.js';
import { verifyAfterLoop } from './verification-step.js';
import { stallMessage } from '../breaker/stall-guard.js';
import { rotateLogIfNeeded } from '../platform/logger.js';
import { checkGuards } from './loop-guards.js';
import { finish, interrupted, waitWithCountdown } from './loop-waits.js';

export async function runLoop(run: Run): Promise<RunStop> {
  const { deps, paths } = run;
  startExitEvidence(run.state.evidence);
  // What the pruning after each loop learned of the agent logs (their times and sizes, each worked out once).
  const logMemory: LogMemory = new Map();

  let dryRunLoops = 0;
  for (;;) {
    if (run.stop.received) return interrupted(run);
    run.state.loopCount++;
    rotateLogIfNeeded(paths.ralphLog);
    touchRalphSession(run.state.sessions, run.readOptions);

    const guard = await checkGuards(run);
    if (guard.kind === 'stop') return finish(run, guard);
    if (guard.kind === 'wait') {
      // A wait is not a loop (the Bash tool skipped loop numbers here).
      run.state.loopCount--;
      continue;
    }
    // Announced only once the guards let it run: a run that ends here had no such loop.
    deps.logger.log('LOOP', `=== Starting Loop #${run.state.loopCount} ===`);
    run.state.lastLoopRun = run.state.loopCount;

    if (run.config.DRY_RUN) {
      describeDryRun(run, run.state.loopCount, guard.prompt);
      dryRunLoops++;
      const limit = run.config.MAX_LOOPS > 0 ? run.config.MAX_LOOPS : 1;
      if (dryRunLoops >= limit) {
        return finish(run, { kind: 'stop', exitCode: EXIT.ok, status: 'completed', exitReason: 'dry_run_complete', lastAction: 'dry_run' });
      }
      continue;
    }

    if (run.config.ENABLE_BACKUP) await backUpWorkingTree(run);
    startCall(run);
    const result = await runIteration(run, run.state.loopCount, guard.prompt);
    pruneAgentLogs(paths.logsDir, run.config.LOG_RETENTION, run.config.LOG_RETENTION_BYTES, logMemory);
    const next = result.guardStop ?? (await afterIteration(run, result));
    if (next.kind === 'stop') return finish(run, next);
    deps.logger.log('LOOP', `=== Completed Loop #${run.state.loopCount} ===`);
    if (run.config.LOOP_DELAY_SECONDS > 0) {
      await deps.clock.sleep(run.config.LOOP_DELAY_SECONDS * 1000, run.stop.signal);
    }
  }
}

/** The call is counted before it is made, so a crash mid-call still counts it; the ledger is written once for it. */
function startCall(run: Run): void {
  batchLedgerWrites(() => {
    run.state.rate.set(countCall(run.state.rate.value));
    beginCallSpend(run);
  });
  run.state.callsMade++;
  run.events.emit('iteration:started', { loop: run.state.loopCount });
  run.state.lastOutcome = 'unverified';
  run.state.loopCostBefore = run.state.spend.value.spend.run.costUsd;
  beginAttemptRecord(run, run.state.loopCount);
}

/** --backup: the whole working tree, before the agent touches it; never fails the loop. */
async function backUpWorkingTree(run: Run): Promise<void> {
  const { deps, paths } = run;
  const backup = await createBackup({
    projectDir: paths.projectDir,
    loop: run.state.loopCount,
    processRunner: deps.processRunner,
    env: deps.env,
    keep: run.config.BACKUP_KEEP,
    now: deps.clock.now(),
    ledger: paths.ledger ?? ledgerPath(paths.projectDir, deps.env, deps.homeDir),
  });
  if ('ref' in backup) deps.logger.info(`Backup before loop #${run.state.loopCount}: ${backup.ref}`);
  else deps.logger.warn(`Backup skipped: ${backup.skipped}`);
}

/** What the guards decided before a call: stop, wait (and check again), or call with this prompt. */
async function afterIteration(run: Run, result: IterationResult): Promise<StepResult> {
  const { deps, paths } = run;
  const { failure } = result;
  if (run.stop.received) {
    reportLoopMetrics(run, result, false);
    return interrupted(run);
  }
  const productive = failure.kind === 'ok' || (failure.kind === 'timeout' && result.progress);
  const gateStartedAt = deps.clock.now();
  const verified = await verifyAfterLoop(run, {
    loop: run.state.loopCount,
    filesChanged: result.filesChanged.length,
    productive: productive && !result.breakerOpened && !result.run.spawnError,
    ...(result.gateRan ? { gateRan: result.gateRan } : {}),
  });
  // The loop's time is the agent call's and the gate's.
  reportLoopMetrics(run, result, verified.kind === 'stop' || result.breakerOpened, deps.clock.now() - gateStartedAt);
  if (verified.kind === 'interrupted') return interrupted(run);
  finishAttemptRecord(run, run.state.loopCount, result);
  if (verified.kind === 'stop') return verified;
  if (result.run.spawnError) {
    // The agent never started, so no call was made: take back the one counted before it.
    run.state.rate.set({ ...run.state.rate.value, calls: Math.max(0, run.state.rate.value.calls - 1) });
    run.state.callsMade--;
    return stop(
      EXIT.couldNotRun,
      'stopped',
      'agent_not_started',
      'failed',
      `Could not start ${run.state.agentChoice.command}: ${result.run.spawnError.message}`,
    );
  }
  // Calls whose cost nobody knows, one after another: the cost budget cannot hold.
  const unknownCost = unknownCostHalt(run);
  if (unknownCost) return stop(EXIT.halted, 'halted', 'unknown_cost_calls', 'unknown_cost', unknownCost);
  if (failure.kind !== 'transient') run.state.consecutiveTransientFailures = 0;

  switch (failure.kind) {
    case 'auth':
    case 'billing':
      // Said once: the failure now, and the fix either here (the run goes on with a fallback
      // agent) or as the run's closing message.
      deps.logger.error(`${run.state.agentChoice.agent.label}: ${failure.message}`);
      if (run.state.agentChoice.dropFailedFallback()) {
        deps.stderr.write(`To fix: ${failure.fix}\n`);
        return CONTINUE;
      }
      return stop(EXIT.couldNotRun, 'stopped', failure.kind === 'auth' ? 'authentication_failed' : 'billing_error', 'failed', `To fix: ${failure.fix}`);
    case 'usage_limit':
      return handleUsageLimit(run, failure.usageLimit.resetAt, failure.message, failure.usageLimit.source);
    case 'transient': {
      run.state.consecutiveTransientFailures++;
      const delay = backoffDelayMs(run.state.consecutiveTransientFailures);
      deps.logger.warn(`${run.state.agentChoice.agent.label} API trouble (${failure.reason}): ${failure.message}; retrying in ${formatCountdown(delay)}`);
      const done = await waitWithCountdown(run, deps.clock.now() + delay, 'backoff', `Retry after ${failure.reason}`);
      return done ? CONTINUE : interrupted(run);
    }
    default:
      break;
  }
  if (result.breakerOpened) {
    resetRunSession(run, 'circuit_breaker_trip', run.state.loopCount);
    const box = formatHaltBox(run.state.breaker.value, { now: deps.clock.now() });
    deps.stderr.write(`${box.join('\n')}\n`);
    return stop(
      EXIT.halted,
      'halted',
      'stagnation_detected',
      'circuit_breaker_open',
      "Circuit breaker opened. Run 'ralph --reset-circuit' after fixing the cause",
    );
  }
  if (productive) {
    const { plan } = run.state;
    const evidence = { itemsCompleted: plan.takeCompleted(), planOpen: plan.openItems.length > 0, latestTests: run.state.verify.latest };
    const stall = run.state.stall.check(evidence, run.config.CB_NO_PLAN_PROGRESS_THRESHOLD);
    // A run at its loop budget stops there anyway: the limit names the stop.
    const atLoopBudget = run.config.MAX_LOOPS > 0 && run.state.spend.value.spend.run.loops >= run.config.MAX_LOOPS;
    if (stall.stalled && !atLoopBudget) {
      resetRunSession(run, 'circuit_breaker_trip', run.state.loopCount);
      return stop(EXIT.halted, 'halted', 'stalled', 'stalled', stallMessage(stall.loops));
    }
    run.events.emit('iteration:ended', { loop: run.state.loopCount, status: 'success' });
    await postProgressIfDue(run, run.lifecycle, run.state.loopCount);
    return CONTINUE;
  }
  const why = failure.kind === 'timeout' ? 'timeout without progress' : failure.message;
  deps.logger.error(`${run.state.agentChoice.agent.label} execution failed (${why}), check: ${paths.logsDir}`);
  run.events.emit('iteration:ended', { loop: run.state.loopCount, status: 'error' });
  const retryMs = run.config.FAILURE_RETRY_SECONDS * 1000;
  if (retryMs > 0) {
    deps.logger.info(`Waiting ${run.config.FAILURE_RETRY_SECONDS} seconds before retry...`);
    await deps.clock.sleep(retryMs, run.stop.signal);
  }
  return CONTINUE;
}

async function handleUsageLimit(run: Run, resetAt: number | undefined, message: string, source: string): Promise<StepResult> {
  const { deps, config } = run;
  const now = deps.clock.now();
  let wait = computeUsageLimitWait({ resetAt: resetAt ?? null, now, ...usageLimitWaitSettings(config) });
  deps.logger.warn(`🚫 ${sessionLabel(run.state.agentChoice.agent)} usage limit reached: ${message}`);
  if (run.state.agentChoice.hasFallbacks) {
    const next = run.state.agentChoice.limitCurrent(wait.resumeAt, message);
    // Another agent is free: the next loop runs on it (AgentChoice.chooseForLoop), nothing is waited out.
    if (next.kind === 'agent') return CONTINUE;
    if (next.kind === 'wait') wait = { ...wait, resumeAt: next.until, waitMs: next.until - now };
  }
  holdRunUsageWait(run, {
    resume_at: formatIsoTimestamp(wait.resumeAt),
    resume_at_ms: wait.resumeAt,
    reason: message,
    source: wait.source === 'stated' ? source : 'fallback',
    detected_at: formatIsoTimestamp(now),
  });
  run.events.emit('usage-limit:reached', { loop: run.state.loopCount, resumeAt: wait.resumeAt, reason: message });
  const choice = await askUsageLimitChoice({
    stdin: deps.stdin,
    stderr: deps.stderr,
    resumeAt: wait.resumeAt,
    timeoutMs: config.USAGE_LIMIT_PROMPT_SECONDS * 1000,
    signal: run.stop.signal,
  });
  if (choice === 'exit') {
    forgetUsageWait(run);
    resetRunSession(run, 'api_limit_exit', run.state.loopCount);
    return stop(EXIT.limit, 'stopped', 'api_5hour_limit', 'api_limit_exit', `Usage limit: ${message}`);
  }
  if (choice === 'retry') {
    forgetUsageWait(run);
    run.state.agentChoice.forgetLimits();
  }
  // 'wait': the guard at the top of the next loop waits until the persisted time.
  return CONTINUE;
}
