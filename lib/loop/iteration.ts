// One agent call, as a pipeline of named steps: count the call, build the context, run the
// agent, measure progress (new content, loop-progress.ts), classify the outcome, analyse the
// response, and record everything (analysis, exit signals, session, spend, breaker); the loop's
// metrics line is handed back, to be written once the verification gate has judged the loop.

import { agentModelOf } from '../agents/choose-agent.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startAgentRun, type AgentRunResult } from '../agent-run/agent-run.js';
import { splitAllowedTools } from '../config/schema.js';
import type { AgentFailureResult } from '../agents/agent-failure.js';
import { formatDuration } from '../limits/countdown.js';
import { buildLoopContext } from '../agents/loop-context.js';
import { usageSinceLastCall } from '../limits/cumulative-usage.js';
import { RUN_MARK_VARIABLE } from '../platform/marked-processes.js';
import { killEscapedProcesses } from '../agent-run/escaped-processes.js';
import { agentOutputLogName, agentStderrLogName, movedControlFiles } from '../state/paths.js';
import { verificationContextSection } from '../verify/verification-tracker.js';
import {
  acceptReportedSessionId,
  resetRunSession,
  resumableSession,
  sessionLabel,
  type ResumableSession,
  type SessionResetReason,
} from '../sessions/agent-session.js';
import { escapedOutputWarning } from '../agent-run/escaped-output.js';
import { reserveCallBudget } from '../limits/run-spend.js';
import { contentAtLoopStart, contentEvidence, measureLoopProgress } from '../analysis/loop-progress.js';
import type { Run } from './run.js';
import { trackAgentGroup } from '../agent-run/agent-group.js';
import { undoGuardedFileChanges } from '../containment/guarded-files-step.js';
import { verifyTicks } from './verification-step.js';
import { disarmGitAfterLoop } from '../containment/git-disarm-step.js';
import { withoutJobSecrets } from '../platform/job-secrets.js';

import { recordOutcome, type AgentAttempt, type IterationResult } from './call-outcome.js';

/** The failing tests the next loop is told about (the loop context's budget is 4000). */
const VERIFICATION_CONTEXT_CHARS = 1500;

/** One loop's agent call with `prompt` (PROMPT.md as the guards read it before the call), and what follows it. */
export async function runIteration(run: Run, loop: number, prompt: string): Promise<IterationResult> {
  const { deps, config } = run;
  const agent = run.state.agentChoice.agent;
  const label = sessionLabel(agent);
  deps.logger.info(`Executing ${agent.label} (Call ${run.state.rate.value.calls}/${config.MAX_CALLS_PER_HOUR})`);

  const before = await contentAtLoopStart(run);

  const session = config.SESSION_CONTINUITY ? resumableSession(run.state.sessions, agent, config.SESSION_EXPIRY_HOURS, run.readOptions) : undefined;
  if (session) deps.logger.info(`Resuming ${label} session: ${session.sessionId.slice(0, 20)}... (${session.ageHours}h old)`);
  else if (config.SESSION_CONTINUITY) deps.logger.info(`Starting new ${label} session`);

  let call = await runAgentOnce(run, loop, session, prompt);
  let failure = classify(run, call);
  if (failure.kind === 'session_not_found' && session) {
    // The CLI no longer has that session (expired or purged): start fresh, once.
    deps.logger.warn(`${label} has no session ${session.sessionId.slice(0, 20)}...; retrying with a fresh session`);
    resetAgentSession(run, 'session_not_found', loop);
    call = await runAgentOnce(run, loop, undefined, prompt);
    failure = classify(run, call);
  }
  // A resumed run tells its first loop what the earlier attempts tried, and then no more.
  run.state.resumeContext = undefined;
  // Before ralph runs anything else (git, the gate): what configures those is put back.
  const guardStop = undoGuardedFileChanges(run, loop);
  await disarmGitAfterLoop(run, loop);

  const measured = await measureLoopProgress(run, before);
  const completedBefore = run.state.plan.completedSinceLook;
  run.state.plan.refresh(contentEvidence(run));
  // Items that need no code change, ticked with no new content: the gate's pass is their evidence, before the loop is judged.
  const ticks = failure.kind === 'ok' && !guardStop ? await verifyTicks(run, loop) : { closedItems: false };
  const planProgress = run.state.plan.completedSinceLook > completedBefore || ticks.closedItems;
  return {
    ...recordOutcome(run, loop, call, failure, { ...measured, planProgress }, session?.sessionId),
    ...(guardStop ? { guardStop } : {}),
    ...(ticks.gateRan ? { gateRan: ticks.gateRan } : {}),
  };
}

async function runAgentOnce(run: Run, loop: number, session: ResumableSession | undefined, prompt: string): Promise<AgentAttempt> {
  const { deps, paths, config } = run;
  const resumeSessionId = session?.sessionId;
  const outputFormat = config.CLAUDE_OUTPUT_FORMAT === 'text' ? 'text' : 'json';
  const invocation = run.state.agentChoice.agent.buildInvocation({
    command: run.state.agentChoice.command,
    prompt,
    outputFormat,
    model: agentModelOf(config, run.state.agentChoice.agent),
    effort: config.CLAUDE_EFFORT || undefined,
    allowedTools: splitAllowedTools(config.ALLOWED_TOOLS),
    resumeSessionId,
    loopContext: buildContext(run, loop),
    maxBudgetUsd: reserveCallBudget(run),
    inheritedEnv: deps.env,
  });
  if (config.RALPH_VERBOSE) {
    deps.logger.debug(
      `${run.state.agentChoice.agent.label} argv (${invocation.args.length + 1} args): ${[invocation.cmd, ...invocation.args].join(' ')} <prompt and loop context on stdin: ${invocation.stdin.length} chars>`,
    );
  }
  await run.sandbox.ensureRunning();
  const now = new Date(deps.clock.now());
  const outputLogPath = uniquePath(join(paths.logsDir, agentOutputLogName(now)));
  run.events.emit('agent:started', { loop, agentLabel: run.state.agentChoice.agent.label, argv: [invocation.cmd, ...invocation.args], outputLogPath });
  const timeoutMs = config.CLAUDE_TIMEOUT_SECONDS > 0 ? config.CLAUDE_TIMEOUT_SECONDS * 1000 : config.CLAUDE_TIMEOUT_MINUTES * 60_000;
  const runId = run.recorder?.record.run_id;
  // In a sandbox the agent gets its own credentials and settings, and no other variable beyond the allow-list.
  const { env, ...sandboxed } = run.sandbox.wrap({ ...invocation, passEnv: run.state.agentChoice.agent.sandboxEnv }, agentEnv(deps.env, runId));
  const group = trackAgentGroup(run.agentGroup);
  const handle = startAgentRun({
    adapter: run.state.agentChoice.agent,
    invocation: sandboxed,
    outputFormat,
    showToolArgs: config.LIVE_SHOW_TOOL_ARGS,
    cwd: paths.projectDir,
    env,
    timeoutMs,
    graceMs: config.KILL_GRACE_SECONDS * 1000,
    outputLogPath,
    stderrLogPath: uniquePath(join(paths.logsDir, agentStderrLogName(now))),
    maxTranscriptBytes: config.TRANSCRIPT_MAX_BYTES,
    processRunner: deps.processRunner,
    clock: deps.clock,
    redact: deps.redact,
    warn: (message) => deps.logger.warn(message),
    onActivity: (activity) => run.events.emit('agent:activity', { loop, activity }),
    onSpawn: (pid) => group.recordSpawned(pid),
    onFirstOutput: (pid) => group.recordSettled(pid),
  });
  run.state.current = handle;
  if (run.stop.received) handle.interrupt();
  let finished: AgentRunResult;
  try {
    finished = await handle.result;
  } finally {
    // The result comes once the whole group is gone (its last members get SIGKILL); what left
    // the group still carries the run's mark.
    run.agentGroup.clearAgent();
    killEscapedProcesses(runId, deps.logger);
    // Inside a sandbox: what the agent left running there is gone before ralph looks at anything.
    await run.sandbox.afterCall();
  }
  const call = {
    ...finished,
    summary: { ...finished.summary, sessionId: acceptReportedSessionId(finished.summary.sessionId, run.state.agentChoice.agent, deps.logger) },
  };
  run.state.current = undefined;
  // Before anything else is said: the live view's spinner line is cleared first.
  run.events.emit('agent:finished', { loop, kind: call.kind, exitCode: call.exitCode, durationMs: call.durationMs });
  if (call.pipesHeldOpen) deps.logger.warn(escapedOutputWarning('agent'));
  const afterResult = call.summary.afterResultLines ?? 0;
  if (afterResult > 0) {
    deps.logger.warn(
      `${run.state.agentChoice.agent.label} printed ${afterResult} line(s) after its result (after-result output): read as nothing; the first result is the call's result`,
    );
  }
  if (call.kind === 'timed-out') {
    deps.logger.warn(`${run.state.agentChoice.agent.label} timed out after ${formatDuration(timeoutMs)} (not an API limit)`);
  }
  if (!run.state.agentChoice.agent.capabilities.cumulativeUsage) return { ...call, outputLogPath };
  // The reported usage is the session's total so far: this call's is the growth since the last
  // call of the same session (a fresh session's total is all its own).
  const total = call.summary.usage;
  const previous = session && call.summary.sessionId === session.sessionId ? session.usage : undefined;
  return { ...call, summary: { ...call.summary, usage: usageSinceLastCall(total, previous) }, outputLogPath, sessionUsage: total };
}

function classify(run: Run, call: AgentRunResult): AgentFailureResult {
  if (call.kind === 'interrupted') return { kind: 'failed', message: 'interrupted' };
  const outputFormat = run.config.CLAUDE_OUTPUT_FORMAT === 'text' ? 'text' : 'json';
  return run.state.agentChoice.agent.classifyFailure(
    { exitCode: call.exitCode, timedOut: call.kind === 'timed-out', summary: call.summary, stderrTail: call.stderrTail, outputFormat },
    run.deps.clock.now(),
  );
}

/** A session reset mid-run clears the exit signals and the last analysis too (as the Bash tool's reset_session does). */
function resetAgentSession(run: Run, reason: SessionResetReason, loop: number): void {
  resetRunSession(run, reason, loop);
}

function buildContext(run: Run, loop: number): string {
  const breaker = run.state.breaker.value.state;
  // The context quotes the agent's previous result and test output: no secret goes back in.
  return run.deps.redact(
    buildLoopContext({
      loop,
      plan: run.state.plan.view,
      files: movedControlFiles(run.paths),
      breakerState: breaker,
      previousAnalysis: run.state.evidence.analysis.value,
      openItemsConflict: run.state.conflicts.last,
      extraSections: [verificationContextSection(run.state.verify, VERIFICATION_CONTEXT_CHARS), run.state.resumeContext ?? ''],
    }),
  );
}

/** Two calls within one second (fast failures, retries) must not overwrite each other's log. */
function uniquePath(path: string): string {
  if (!existsSync(path)) return path;
  for (let n = 2; ; n++) {
    const candidate = path.replace(/\.log$/, `_${n}.log`);
    if (!existsSync(candidate)) return candidate;
  }
}

/**
 * The agent's environment: ralph's, without its debug switch and a CI job's tokens and step
 * files, marked with the run's id.
 */
function agentEnv(env: NodeJS.ProcessEnv, runId: string | undefined): NodeJS.ProcessEnv {
  const { RALPH_DEBUG: _debug, ...rest } = withoutJobSecrets(env);
  return runId === undefined ? rest : { ...rest, [RUN_MARK_VARIABLE]: runId };
}
