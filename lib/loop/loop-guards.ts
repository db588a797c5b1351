// The guards before each loop, in the Bash tool's order: the control files, the circuit breaker,
// the usage-limit wait (and the agent the loop runs on), the hourly rate window, the budgets, the
// exit gate, the loop budget. Each lets the loop go on, makes it wait, or stops the run.

import { formatHaltBox } from '../breaker/breaker-messages.js';
import { applyStartupRecovery, cooldownEndsAt, shouldHalt } from '../breaker/circuit-breaker.js';
import { checkRateLimit } from '../limits/rate-window.js';
import { checkBudgets } from '../limits/spend.js';
import { EXIT } from '../errors.js';
import { resetRunSession } from '../sessions/agent-session.js';
import { breakerThresholds, holdBreaker } from '../breaker/breaker-step.js';
import { evaluateGate, exitFromGate } from '../exit-gate/exit-step.js';
import { budgetBasis, forgetUsageWait, readUsageWait } from '../limits/shared-account.js';
import { stopRun as stop, type Run, type RunStop } from './run.js';
import { missingRequiredPaths, readPromptAndCheckFiles, RESTORE_HINT } from './startup.js';
import { checkCompletionClaim } from './verification-step.js';
import { interrupted, waitWithCountdown } from './loop-waits.js';

export type GuardResult = RunStop | { kind: 'wait' } | { kind: 'ready'; prompt: string };

/** A guard that lets the loop go on says nothing (undefined). */
type Guard = (run: Run) => GuardResult | undefined | Promise<GuardResult | undefined>;

/** Before each loop, in this order: the control files, the breaker, the limits, the budgets, the exit gate. */
const GUARDS: readonly Guard[] = [
  checkBreakerBeforeLoop,
  waitOutUsageLimit,
  chooseAgentForLoop,
  waitOutRateWindow,
  checkRunBudgets,
  checkExitGate,
  checkLoopBudget,
];

export async function checkGuards(run: Run): Promise<GuardResult> {
  const files = checkControlFiles(run);
  if (files.kind !== 'ready') return files;
  for (const guard of GUARDS) {
    const result = await guard(run);
    if (result) return result;
  }
  return files;
}

/** The control files are all there; the prompt the call gets, read once a loop. */
function checkControlFiles(run: Run): GuardResult {
  const { deps, paths } = run;
  const missing = missingRequiredPaths(paths);
  if (missing.length > 0) {
    deps.logger.error(`Ralph integrity check failed - critical files missing: ${missing.join(', ')}`);
    resetRunSession(run, 'integrity_failure', run.state.loopCount);
    return stop(EXIT.halted, 'halted', 'files_deleted', 'integrity_failure', `Required files are missing; ${RESTORE_HINT}`);
  }
  // The agent may have turned a control file into a directory, a FIFO or a symlink out of the
  // project: a clear error (thrown to the error funnel) before this call is counted.
  return { kind: 'ready', prompt: readPromptAndCheckFiles(paths, run.promptFile) };
}

function checkBreakerBeforeLoop(run: Run): GuardResult | undefined {
  const { deps, config } = run;
  const now = deps.clock.now();
  // The cooldown or CB_AUTO_RESET may close an OPEN breaker; an unchanged one is not written.
  const recovered = applyStartupRecovery(run.state.breaker.value, breakerThresholds(config), now);
  if (recovered.transition) holdBreaker(run, recovered);
  if (!shouldHalt(run.state.breaker.value)) return undefined;
  const box = formatHaltBox(run.state.breaker.value, { cooldownEndsAt: cooldownEndsAt(run.state.breaker.value, breakerThresholds(config)), now });
  deps.stderr.write(`${box.join('\n')}\n`);
  resetRunSession(run, 'circuit_breaker_open', run.state.loopCount);
  return stop(EXIT.halted, 'halted', 'stagnation_detected', 'circuit_breaker_open', `Circuit breaker is OPEN: ${run.state.breaker.value.reason}`);
}

async function waitOutUsageLimit(run: Run): Promise<GuardResult | undefined> {
  const usageWait = readUsageWait(run);
  if (!usageWait) return undefined;
  if (usageWait.resume_at_ms > run.deps.clock.now()) {
    const done = await waitWithCountdown(run, usageWait.resume_at_ms, 'usage', `Usage limit: ${usageWait.reason}`);
    if (!done) return interrupted(run);
  }
  forgetUsageWait(run);
  return { kind: 'wait' };
}

async function chooseAgentForLoop(run: Run): Promise<GuardResult | undefined> {
  if (!run.state.agentChoice.hasFallbacks) return undefined;
  const pick = run.state.agentChoice.chooseForLoop();
  if (pick.kind !== 'wait') return undefined;
  // Every agent is limited (a restarted run, or no usage-limit wait saved): wait for the first reset.
  const done = await waitWithCountdown(run, pick.until, 'usage', `Usage limit: ${pick.reason}`);
  return done ? { kind: 'wait' } : interrupted(run);
}

async function waitOutRateWindow(run: Run): Promise<GuardResult | undefined> {
  const { deps, config } = run;
  run.state.rate.roll();
  const rate = checkRateLimit(run.state.rate.value, { maxCalls: config.MAX_CALLS_PER_HOUR, maxTokens: 0 }, deps.clock.now());
  if (rate.ok) return undefined;
  const what = `calls: ${run.state.rate.value.calls}/${config.MAX_CALLS_PER_HOUR}`;
  deps.logger.warn(`Rate limit reached (${what}). Waiting for reset...`);
  const done = await waitWithCountdown(run, rate.resetAt, 'rate', `Rate limit (${what})`);
  if (!done) return interrupted(run);
  run.state.rate.roll();
  deps.logger.success('Rate limit reset! Ready for new calls.');
  return { kind: 'wait' };
}

/** Shared with the other runs of the account (ralph --parallel), --max-loops aside. */
function checkRunBudgets(run: Run): GuardResult | undefined {
  const { config } = run;
  const basis = budgetBasis(run);
  const budget = checkBudgets(
    basis.spend,
    {
      maxCostUsd: config.MAX_COST_USD,
      maxTokensPerHour: config.MAX_TOKENS_PER_HOUR,
      maxLoops: null,
      maxRunMinutes: config.MAX_RUN_MINUTES,
      startedAt: basis.startedAt,
      loopsDone: run.state.spend.value.spend.run.loops,
    },
    run.deps.clock.now(),
  );
  return budget ? { ...stop(EXIT.limit, 'stopped', budget.exitReason, 'budget_reached', budget.reason), endsRun: budget.endsRun } : undefined;
}

async function checkExitGate(run: Run): Promise<GuardResult | undefined> {
  const { deps } = run;
  const gate = evaluateGate(run);
  if (gate.kind === 'exit') {
    // A completion stands only when the verification gate passes on the current code.
    const claim = await checkCompletionClaim(run, gate);
    if (claim.kind === 'interrupted') return interrupted(run);
    if (claim.kind === 'stop') return claim;
    if (claim.kind === 'proceed') return exitFromGate(run, gate);
  } else if (gate.compoundCommands) {
    deps.logger.warn(
      `Claude CLI denied ${gate.compoundCommands.count} compound command(s) but the base command is already in ALLOWED_TOOLS: ${gate.compoundCommands.deniedCommands.join(', ')}`,
    );
  }
  const conflict = run.state.conflicts.last;
  if (conflict) {
    deps.logger.warn(`Completion claimed but fix_plan.md has ${conflict.openItems.length} open item(s) (${conflict.count}/${conflict.limit}); continuing`);
  }
  return undefined;
}

/** The run's calls, cut-off ones included, whichever ralph made them. */
function checkLoopBudget(run: Run): GuardResult | undefined {
  const { config } = run;
  const loops = run.state.spend.value.spend.run.loops;
  if (config.MAX_LOOPS <= 0 || loops < config.MAX_LOOPS || config.DRY_RUN) return undefined;
  const reason = `Loop budget reached: ${loops} of --max-loops ${config.MAX_LOOPS} loops done`;
  return { ...stop(EXIT.limit, 'stopped', 'max_loops_reached', 'budget_reached', reason), endsRun: true };
}
