// Everything one run of the loop carries from step to step: configuration, paths, effects,
// and the few counters that change as it goes. Built once by run-project.ts.

import type { GuardedFiles } from './guarded-files.js';
import type { UsageWaitFile } from './guard-store.js';
import type { AgentRunHandle } from '../agents/agent-run.js';
import type { RalphConfig } from '../config/schema.js';
import type { AllowedToolsOrigin } from '../core/breaker-messages.js';
import type { CompletionConflict } from '../core/exit-gate.js';
import type { VerificationOutcome } from '../core/verification.js';
import type { BreakerState } from '../core/circuit-breaker.js';
import type { PlanView } from '../core/fix-plan.js';
import type { PlanMemory } from '../core/plan-memory.js';
import type { Deps } from '../platform/deps.js';
import type { RalphPaths } from '../state/paths.js';
import type { RunRecorder } from '../session-record/run-recorder.js';
import type { AgentAdapter } from '../agents/agent-adapter.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { AgentLimits } from '../core/agent-fallback.js';
import type { ProjectLock } from '../state/lock.js';
import type { StateReadOptions } from '../state/state-file.js';
import type { VerificationSetup } from '../verify/verification-setup.js';
import type { VerificationTrackerState } from '../verify/verification-tracker.js';
import type { AgentDisplay } from './agent-display.js';
import type { RunSessions } from './agent-session.js';
import type { LoopEvents } from './events.js';
import type { ExitEvidence } from './exit-evidence.js';
import type { IssueLifecycle } from './github-lifecycle.js';
import type { HeldState } from './held-state.js';
import type { LoopContentState } from './loop-progress.js';
import type { HeldRateWindow, RunState } from './guard-store.js';
import type { SharedAccount } from './shared-account.js';
import type { StatusWriter } from './status-writer.js';
import type { StopSignal } from './stop-signal.js';

export interface LoopRuntime {
  config: RalphConfig;
  paths: RalphPaths;
  deps: Deps;
  state: StateReadOptions;
  /** The agent the next loop calls (agents/registry.ts): the primary, or a fallback while the primary is limited. */
  agent: AgentAdapter;
  /** Its command (CLAUDE_CODE_CMD, …) as resolved at startup. */
  agentCommand: string;
  /** Where the agent runs: on the host, or in the run's sandbox (lib/sandbox/). */
  sandbox: Sandbox;
  /** The run's agents in order: AGENT_PROVIDER first, then the FALLBACK_AGENTS found at startup. */
  agents: AgentSlot[];
  /** Agents left out for the rest of the run (a fallback agent whose sign-in failed). */
  droppedAgents: Set<string>;
  /** Each agent's usage-limit reset while the run goes on without it (written through to .agent_limits). */
  agentLimits: AgentLimits;
  promptFile: string;
  status: StatusWriter;
  display: AgentDisplay;
  events: LoopEvents;
  stop: StopSignal;
  /** Loop number (Bash `loop_count`): counts iterations, shown in status.json. */
  loopCount: number;
  /** The last loop that got past its guards and ran (0: none yet); loopCount may be one ahead. */
  lastLoopRun: number;
  /** Agent calls this process made (the run's own count, cut-off calls included, is run.spend.run.loops). */
  callsMade: number;
  /** The hourly call/token window (.call_count, .token_count, .last_reset), held and written through. */
  rate: HeldRateWindow;
  /**
   * The circuit breaker, loaded once when the run starts and written through on every change.
   * The agent can write .ralph/, so the loop never reads the breaker back from disk mid-run:
   * an agent that rewrites .circuit_breaker_state cannot reset its own count.
   */
  breaker: BreakerState;
  /** The agent session to resume and .ralph_session, held like the breaker (agent-session.ts). */
  sessions: RunSessions;
  /** The exit signals and the last loop's analysis, held like the breaker (exit-evidence.ts). */
  evidence: ExitEvidence;
  /** The run's spend and budgets, carried across restarts, held and written through to .run_state (run-spend.ts). */
  run: HeldState<RunState>;
  /** When the run's clock started, as if it had run without a break: now minus its run time so far. */
  runClockStart: number;
  /** fix_plan.md as last parsed: when the loop's guards ran, then when the agent exited (plan-view.ts). */
  plan: PlanView | null;
  /** The open plan items seen in this run, so a hidden one still counts (plan-view.ts). */
  planMemory?: PlanMemory;
  /** Plan items completed (ticked with measured new content) since the stall guard last looked. */
  planItemsCompleted?: number;
  /** Loops in a row without plan progress: the stall guard's count (stall-guard.ts). */
  loopsWithoutPlanProgress?: number;
  /** The last note about hidden plan items, logged once until it changes. */
  planHiddenNote?: string;
  /** Consecutive loops whose completion claim fix_plan.md contradicted. */
  conflictCount: number;
  /** The completion conflict the exit gate saw before this loop, told to the agent. */
  lastConflict?: CompletionConflict;
  consecutiveTransientFailures: number;
  /** The agent run in flight, so a signal can interrupt it. */
  current?: AgentRunHandle;
  /** Where the running agent's process group is recorded, for a ralph that finds us dead. */
  agentGroup: Pick<ProjectLock, 'recordAgent' | 'clearAgent'>;
  /** Where the run's ALLOWED_TOOLS came from, for the permission halt. */
  allowedToolsFrom: AllowedToolsOrigin;
  /** What the verification gate runs (nothing: the gate costs nothing). */
  verification: VerificationSetup;
  /** The latest gate result, its freshness and the same-failures count. */
  verify: VerificationTrackerState;
  /** The iteration session record; undefined in a dry run. */
  recorder?: RunRecorder;
  /** What earlier attempts of a resumed run tried, for the first loop's context only. */
  resumeContext?: string;
  /** The verification outcome of the loop in progress ('unverified' when the gate told nothing). */
  lastOutcome: VerificationOutcome | 'unverified';
  /** The run's cost when the loop in progress started (the attempt's cost is the difference). */
  loopCostBefore: number;
  /** Content snapshots and the content ids seen in this run (set up by the first loop). */
  content?: LoopContentState;
  /** The GitHub issue this run works on (GITHUB_ISSUE); undefined: none. */
  lifecycle?: IssueLifecycle;
  /** What this run shares with the other runs of one account (ralph --parallel); undefined: nothing. */
  account?: SharedAccount;
  /** The guarded files as the run started (lib/loop/guarded-files.ts). */
  guarded: GuardedFiles;
  /** Agent calls in this run that changed a guarded file. */
  guardViolations: number;
  /** The run's pending usage-limit wait when it has no shared account (lib/loop/shared-account.ts). */
  usageWait?: UsageWaitFile;
  /** What the guards undid or refused in this run, as the monitor shows it (status.json `run_alerts`). */
  alerts: string[];
}

/** One agent the run may call, with its command as resolved at startup. */
export interface AgentSlot {
  adapter: AgentAdapter;
  command: string;
  /** The CLI accepts `--max-budget-usd` (Claude, from its `--help`; asked only with a cost budget). */
  acceptsMaxBudget?: boolean;
}

/** Outcome of a step: go on, or stop the run with this status and exit code. */
export type StepResult = { kind: 'continue' } | RunStop;

export interface RunStop {
  kind: 'stop';
  exitCode: number;
  status: string;
  exitReason: string;
  lastAction: string;
  message?: string;
  /** Stopped at one of the run's budgets: the run is finished, the next `ralph` starts a new one. */
  endsRun?: boolean;
}

export const CONTINUE: StepResult = { kind: 'continue' };

export function stopRun(exitCode: number, status: string, exitReason: string, lastAction: string, message?: string): RunStop {
  return { kind: 'stop', exitCode, status, exitReason, lastAction, message };
}
