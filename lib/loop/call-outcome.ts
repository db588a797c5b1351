// What an agent call's outcome does to the run, step by step: the response analysed and kept (as
// exit evidence), the agent session kept or reset, the call's tokens and cost counted, the
// circuit breaker fed, and the loop's metrics line and `iteration:completed` event prepared (sent
// once the verification gate has judged the loop).

import { relative } from 'node:path';
import type { AgentRunResult } from '../agent-run/agent-run.js';
import { splitAllowedTools } from '../config/schema.js';
import type { AgentFailureResult } from '../agents/agent-failure.js';
import { errorSignatureOf, nextBreakerState } from '../breaker/circuit-breaker.js';
import { addTokens } from '../limits/rate-window.js';
import type { TokenUsage } from '../agents/claude-output.js';
import { analyzeResponse, type ResponseAnalysis } from '../analysis/response-analysis.js';
import { redactDeep } from '../text/redaction.js';
import type { MetricsLine } from '../state/schemas.js';
import { formatIsoTimestamp } from '../state/timestamps.js';
import { batchLedgerWrites } from '../state/ledger.js';
import { resetRunSession, saveAgentSession } from '../sessions/agent-session.js';
import { breakerThresholds, holdBreaker } from '../breaker/breaker-step.js';
import { endCallSpend } from '../limits/run-spend.js';
import type { LoopEventMap } from './events.js';
import type { LoopProgress } from '../analysis/loop-progress.js';
import { recordAnalysis } from '../exit-gate/exit-evidence.js';
import type { Run, RunStop } from './run.js';
import type { TrackedVerification } from '../verify/verification-tracker.js';

export interface IterationResult {
  /** How the agent call ended, for the loop's next decision. */
  failure: AgentFailureResult;
  run: AgentRunResult;
  filesChanged: string[];
  /** The loop left the project's content in a state not seen before in this run. */
  progress: boolean;
  analysis: ResponseAnalysis | null;
  breakerOpened: boolean;
  /** The loop's metrics line as the agent call left it; reported once the gate has judged it (metrics-step.ts). */
  metrics: MetricsLine;
  /** The 'iteration:completed' event, sent once the loop (and its record) is complete. */
  completed: LoopEventMap['iteration:completed'];
  /** The agent changed guarded files a second time in this run: the run halts. */
  guardStop?: RunStop;
  /** The verification gate ran in this loop already (verification-step.ts verifyTicks). */
  gateRan?: TrackedVerification;
}

/** One agent call as it ended, with where its output went. */
export interface AgentAttempt extends AgentRunResult {
  outputLogPath: string;
  /** The session's running token total as the agent reported it (agents with cumulative usage). */
  sessionUsage?: TokenUsage;
}

/** What the loop measured around the call. */
type Measured = LoopProgress & { planProgress: boolean };

/** The call's outcome, recorded: analysis, session, spend, breaker; the loop's result handed back. */
export function recordOutcome(...args: Parameters<typeof recordOutcomeNow>): IterationResult {
  // The call's tokens, spend and breaker all change the ledger: written once, at the end.
  return batchLedgerWrites(() => recordOutcomeNow(...args));
}

function recordOutcomeNow(
  run: Run,
  loop: number,
  call: AgentAttempt,
  failure: AgentFailureResult,
  measured: Measured,
  resumedSessionId: string | undefined,
): IterationResult {
  // One time for the whole outcome: the analysis, the breaker's transition and the metrics line agree.
  const now = run.deps.clock.now();
  const productiveTimeout = failure.kind === 'timeout' && measured.progress;
  const analysable = failure.kind === 'ok' || productiveTimeout;
  const analysis = analysable ? analyseCall(run, loop, call, measured, now) : null;
  keepOrResetSession(run, loop, call, failure);
  countCall(run, call, resumedSessionId);
  const breakerOpened = feedBreaker(run, { loop, now, failure, call, analysis, measured, analysable });
  const outcome = productiveTimeout ? 'timed_out_productive' : failure.kind;
  run.events.emit('agent:judged', { loop, outcome, isError: call.summary.isError, filesChanged: measured.filesChanged.length });
  return {
    failure,
    run: call,
    filesChanged: measured.filesChanged,
    progress: measured.progress,
    analysis,
    breakerOpened,
    metrics: metricsLineOf(run, { loop, now, call, outcome, failure, analysis, measured }),
    completed: completedEventOf(run, loop, call, failure, analysis, measured),
  };
}

/** The response analysed, kept as exit evidence and logged. */
function analyseCall(run: Run, loop: number, call: AgentAttempt, measured: Measured, now: number): ResponseAnalysis {
  const { deps, paths, config } = run;
  deps.logger.info(`🔍 Analyzing ${run.state.agentChoice.agent.label} response...`);
  // Redacted once, here: the analysis is saved, logged, put in metrics, the run record and
  // the next loop's context; the decisions below read only its flags and counts.
  const analysis = redactDeep(
    analyzeResponse({
      agent: call.summary,
      loopNumber: loop,
      filesChanged: measured.filesChanged.length,
      newContent: measured.progress,
      allowedTools: splitAllowedTools(config.ALLOWED_TOOLS),
      outputFile: relative(paths.projectDir, call.outputLogPath),
      now: new Date(now),
    }),
    deps.redact,
  );
  recordAnalysis(run.state.evidence, analysis, loop);
  logAnalysis(run, analysis);
  return analysis;
}

/** The session the CLI reported is kept for the next loop; an error that poisons it resets it. */
function keepOrResetSession(run: Run, loop: number, call: AgentAttempt, failure: AgentFailureResult): void {
  const s = call.summary;
  if (s.sessionId && run.config.SESSION_CONTINUITY && (failure.kind === 'ok' || failure.kind === 'timeout' || failure.kind === 'failed')) {
    if (!s.isError) saveAgentSession(run.state.sessions, run.state.agentChoice.agent, s.sessionId, run.readOptions, call.sessionUsage);
    else run.deps.logger.warn('Skipping session save — response has is_error:true');
  }
  // A session reset mid-run clears the exit signals and the last analysis too (as the Bash tool's reset_session does).
  if (s.isError && failure.kind === 'failed') {
    const concurrency = /tool.use.concurrency|concurrency/i.test(s.resultText);
    resetRunSession(run, concurrency ? 'tool_use_concurrency_error' : 'api_error_is_error_true', loop);
  }
  if (failure.kind === 'prompt_too_long') resetRunSession(run, 'prompt_too_long', loop);
}

/** The call's tokens in the hourly window, its cost and tokens in the run's spend. */
function countCall(run: Run, call: AgentAttempt, resumedSessionId: string | undefined): void {
  const s = call.summary;
  run.state.rate.set(addTokens(run.state.rate.value, s.usage.input + s.usage.output));
  // An agent that could not be spawned made no call: the one counted before it is taken back.
  endCallSpend(
    run,
    call.spawnError
      ? 'not_started'
      : {
          sessionId: s.sessionId,
          resumed: resumedSessionId !== undefined,
          resumedSessionId: resumedSessionId ?? null,
          usage: s.usage,
          totalCostUsd: s.totalCostUsd,
          sinceLastResultCostUsd: s.sinceLastResultCostUsd,
          // Plain-text output carries no cost: a call is of unknown cost only where a cost is reported.
          reportsCost: run.state.agentChoice.agent.capabilities.cost && run.config.CLAUDE_OUTPUT_FORMAT !== 'text',
          cutOffByRalph: call.kind === 'interrupted' || call.kind === 'timed-out',
        },
  );
}

/** A loop's call as judged, with what the loop measured around it. */
interface JudgedCall {
  loop: number;
  now: number;
  call: AgentAttempt;
  failure: AgentFailureResult;
  analysis: ResponseAnalysis | null;
  measured: Measured;
}

/** The loop as the circuit breaker counts it; true when it opened. */
function feedBreaker(run: Run, { loop, now, failure, call, analysis, measured, analysable }: JudgedCall & { analysable: boolean }): boolean {
  // Transient API trouble and usage limits are waited out, not counted against the work; a
  // login or billing failure stops the run and is fixed outside it: not a loop without progress.
  const notTheWork = ['transient', 'usage_limit', 'auth', 'billing'];
  if (notTheWork.includes(failure.kind) || call.kind === 'interrupted') return false;
  const a = analysis?.analysis;
  const errorText = a ? a.error_signature || null : errorSignatureOf('message' in failure ? failure.message : 'failed');
  const result = nextBreakerState(
    { ...run.state.breaker.value, seen_content: run.state.content?.memory },
    {
      loop,
      progress: measured.progress,
      askingQuestions: a?.asking_questions ?? false,
      hasPermissionDenials: a?.has_permission_denials ?? false,
      errorSignature: errorText,
      failed: !analysable,
      planProgress: measured.planProgress,
    },
    breakerThresholds(run.config),
    now,
  );
  holdBreaker(run, result);
  return result.state.state === 'OPEN';
}

function metricsLineOf(run: Run, { loop, now, call, outcome, failure, analysis, measured }: JudgedCall & { outcome: string }): MetricsLine {
  const s = call.summary;
  return {
    timestamp: formatIsoTimestamp(now),
    loop,
    duration: Math.round(call.durationMs / 1000),
    success: failure.kind === 'ok',
    calls: 1,
    tokens: s.usage.input + s.usage.output,
    cost_usd: Number(run.state.spend.value.spend.run.costUsd.toFixed(6)),
    files_changed: measured.filesChanged.length,
    exit_signal: analysis?.analysis.exit_signal ?? false,
    tests_status: analysis?.analysis.tests_status ?? null,
    outcome,
    input_tokens: s.usage.input,
    output_tokens: s.usage.output,
    cache_read_tokens: s.usage.cacheRead,
    cache_creation_tokens: s.usage.cacheCreation,
    agent: run.state.agentChoice.agent.name,
  };
}

function completedEventOf(
  run: Run,
  loop: number,
  call: AgentAttempt,
  failure: AgentFailureResult,
  analysis: ResponseAnalysis | null,
  measured: Measured,
): LoopEventMap['iteration:completed'] {
  return {
    loop,
    success: failure.kind === 'ok',
    durationMs: call.durationMs,
    calls: 1,
    outcome: failure.kind,
    filesChanged: measured.filesChanged.length,
    exitSignal: analysis?.analysis.exit_signal ?? false,
    testsStatus: analysis?.analysis.tests_status ?? undefined,
    tokens: call.summary.usage,
    costUsd: run.state.spend.value.spend.run.costUsd,
    summary: analysis?.analysis.work_summary.slice(0, 200),
  };
}

function logAnalysis(run: Run, analysis: ResponseAnalysis): void {
  const a = analysis.analysis;
  const summary =
    a.work_summary
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.slice(0, 100) ?? '';
  const claimed = a.files_modified_claimed === null ? '' : ` (agent reported ${a.files_modified_claimed})`;
  run.deps.logger.info(
    `Analysis: exit signal ${a.exit_signal}, files changed ${a.files_modified}${claimed}, new content ${a.has_progress ? 'yes' : 'no'}, confidence ${a.confidence_score}%` +
      `${a.is_test_only ? ', test only' : ''}${summary ? ` — ${summary}` : ''}`,
  );
  if (a.claim_disagreement) run.deps.logger.warn(`Progress claim not confirmed: ${a.claim_disagreement}; progress counts only what ralph measures`);
}
