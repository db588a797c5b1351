// One run of the loop as an object: what never changes while it runs (configuration, paths,
// effects, the agents, the sandbox, where it reports) in readonly fields, and the run's state in
// one mutable part, `run.state`. The state is loaded once, when the run starts, by
// holdRunState: each state file becomes one held object (held-state.ts), changed in memory and
// written through; nothing passes between loops through a file the agent can write. Several runs
// can live in one process (ralph --parallel): each has its own state, and shares only what is
// per account (SharedAccount: the hourly window, the budgets).

import type { GuardedFiles } from '../containment/guarded-files.js';
import { GuardRecord } from '../containment/guard-record.js';
import type { NestedRepositories } from '../containment/git-disarm.js';
import type { AgentRunHandle } from '../agent-run/agent-run.js';
import type { RalphConfig } from '../config/schema.js';
import { usageLimitWaitSettings } from '../limits/usage-limit-settings.js';
import type { AllowedToolsOrigin } from '../breaker/breaker-messages.js';
import { CompletionConflicts } from '../exit-gate/completion-conflicts.js';
import type { VerificationOutcome } from '../verify/verification.js';
import { newRunPlan, type RunPlan } from '../plan/plan-view.js';
import { loadPlanMemory } from '../plan/plan-store.js';
import { StallGuard } from '../breaker/stall-guard.js';
import { longestUsageLimitWaitMs } from '../limits/reset-time.js';
import type { Deps } from '../platform/deps.js';
import type { RalphPaths } from '../state/paths.js';
import type { RunRecorder } from '../run-record/run-recorder.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { AgentChoice, type AgentSlot } from '../agent-run/agent-choice.js';
import type { ProjectLock } from '../state/lock.js';
import type { StateReadOptions } from '../state/state-file.js';
import type { VerificationSetup } from '../verify/verification-setup.js';
import { initialVerificationTracker, type VerificationTrackerState } from '../verify/verification-tracker.js';
import { holdAgentLimits, loadAgentLimits } from '../agent-run/agent-limits.js';
import { loadRunSessions, type RunSessions } from '../sessions/agent-session.js';
import type { LoopEvents } from './events.js';
import { holdExitEvidence, type ExitEvidence } from '../exit-gate/exit-evidence.js';
import type { IssueLifecycle } from '../lifecycle/lifecycle-state.js';
import type { HeldState } from '../state/held-state.js';
import type { LoopContentState } from '../analysis/content-snapshot.js';
import { loadHeldBreaker, type HeldBreaker } from '../breaker/breaker-store.js';
import { holdRateWindow, holdUsageWait, loadRateWindow, loadUsageWait, HeldRunSpend, type HeldRateWindow, type UsageWaitFile } from '../limits/limits-store.js';
import type { SharedAccount } from '../limits/shared-account.js';
import type { StopSignal } from './stop-signal.js';

/** What never changes while a run goes on: the steps read it, the compiler keeps them from writing it. */
export interface RunSetup {
  readonly config: RalphConfig;
  readonly paths: RalphPaths;
  readonly deps: Deps;
  /** How the run reads a state file (its logger and clock; a bad one is set aside). */
  readonly readOptions: StateReadOptions;
  /** Where the agent runs: on the host, or in the run's sandbox (lib/sandbox/). */
  readonly sandbox: Sandbox;
  /** The run's agents in order: AGENT_PROVIDER first, then the FALLBACK_AGENTS found at startup. */
  readonly agents: readonly AgentSlot[];
  readonly promptFile: string;
  /** Where the run tells what happens; status.json, metrics, progress and the live view listen (run-project.ts). */
  readonly events: LoopEvents;
  readonly stop: StopSignal;
  /** Where the running agent's process group is recorded, for a ralph that finds us dead. */
  readonly agentGroup: Pick<ProjectLock, 'recordAgent' | 'clearAgent'>;
  /** Where the run's ALLOWED_TOOLS came from, for the permission halt. */
  readonly allowedToolsFrom: AllowedToolsOrigin;
  /** What the verification gate runs (nothing: the gate costs nothing). */
  readonly verification: VerificationSetup;
  /** What this run shares with the other runs of one account (ralph --parallel); undefined: nothing. */
  readonly account?: SharedAccount;
  /** The guarded files as the run started (lib/containment/guarded-files.ts). */
  readonly guarded: GuardedFiles;
  /** The nested git repositories as last disarmed (lib/containment/git-disarm.ts); undefined: not looked at. */
  readonly gitRepositories?: NestedRepositories;
  /** The run's state: the one part that changes as it goes. */
  readonly state: RunState;
}

/** A run once it has started: its session record and issue are open, and stay so until it ends. */
export interface Run extends RunSetup {
  /** The iteration session record; undefined in a dry run. */
  readonly recorder?: RunRecorder;
  /** The GitHub issue this run works on (GITHUB_ISSUE); undefined: none. */
  readonly lifecycle?: IssueLifecycle;
}

/**
 * The run's state. Each state file is one held object, read once when the run starts and written
 * through (the agent can write .ralph/, so none is read back mid-run); the rest lives in memory.
 */
export interface RunState {
  /** The hourly call/token window (.call_count, .token_count, .last_reset): the account's when it has one. */
  readonly rate: HeldRateWindow;
  /**
   * The circuit breaker. The loop never reads it back from disk mid-run: an agent that rewrites
   * .circuit_breaker_state cannot reset its own count.
   */
  readonly breaker: HeldBreaker;
  /** The agent session to resume and .ralph_session (agent-session.ts). */
  readonly sessions: RunSessions;
  /** The exit signals and the last loop's analysis (exit-evidence.ts). */
  readonly evidence: ExitEvidence;
  /** The run's spend and budgets, carried across restarts, and the run's clock (limits/limits-store.ts). */
  readonly spend: HeldRunSpend;
  /** The run's pending usage-limit wait when it has no shared account (.usage_limit_wait). */
  readonly usageWait: HeldState<UsageWaitFile | undefined>;

  /** The agent the next loop calls, its command, each agent's usage limit, the fallbacks left out (agent-run/agent-choice.ts). */
  readonly agentChoice: AgentChoice;
  /** Loop number (Bash `loop_count`): counts iterations, shown in status.json. */
  loopCount: number;
  /** The last loop that got past its guards and ran (0: none yet); loopCount may be one ahead. */
  lastLoopRun: number;
  /** Agent calls this process made (the run's own count, cut-off calls included, is spend.run.loops). */
  callsMade: number;
  /** fix_plan.md as last parsed, the memory of its open items and what the run counted of them (plan/plan-view.ts). */
  readonly plan: RunPlan;
  /** The stall guard's counts: loops in a row without plan progress, the best test result (breaker/stall-guard.ts). */
  readonly stall: StallGuard;
  /** The completion claims fix_plan.md contradicted: how many in a row, the latest (exit-gate/completion-conflicts.ts). */
  readonly conflicts: CompletionConflicts;
  consecutiveTransientFailures: number;
  /** The agent run in flight, so a signal can interrupt it. */
  current?: AgentRunHandle;
  /** The latest gate result, its freshness and the same-failures count. */
  verify: VerificationTrackerState;
  /** What earlier attempts of a resumed run tried, for the first loop's context only. */
  resumeContext?: string;
  /** The verification outcome of the loop in progress ('unverified' when the gate told nothing). */
  lastOutcome: VerificationOutcome | 'unverified';
  /** The run's cost when the loop in progress started (the attempt's cost is the difference). */
  loopCostBefore: number;
  /** Content snapshots and the content ids seen in this run (set up by the first loop). */
  content?: LoopContentState;
  /** What the guards undid or refused in this run, and how many agent calls changed a guarded file (containment/guard-record.ts). */
  readonly guards: GuardRecord;
}

/** What the loader needs: where the state lives, how to read it, and what the run shares. */
export interface RunStateSource {
  readonly config: RalphConfig;
  readonly paths: RalphPaths;
  readonly readOptions: StateReadOptions;
  readonly agents: readonly AgentSlot[];
  readonly account?: SharedAccount;
}

/**
 * The run's state, loaded once from .ralph/ (and the ledger) when the run starts: every file
 * read here, range-checked, and held for the run. The first agent of `agents` runs first.
 */
export function holdRunState(source: RunStateSource): RunState {
  const { config, paths, readOptions, agents, account } = source;
  const { clock } = readOptions;
  const now = clock.now();
  const longestWaitMs = longestUsageLimitWaitMs(usageLimitWaitSettings(config));
  return {
    agentChoice: new AgentChoice(agents, holdAgentLimits(paths, agents.length > 1 ? loadAgentLimits(paths, readOptions, longestWaitMs) : {}), readOptions),
    loopCount: 0,
    lastLoopRun: 0,
    callsMade: 0,
    rate: account?.rate ?? holdRateWindow(paths, loadRateWindow(paths, readOptions), clock),
    breaker: loadHeldBreaker(paths, readOptions),
    sessions: loadRunSessions(paths, readOptions),
    evidence: holdExitEvidence(paths),
    // The run's own spend replaces this once the session record says which run this is.
    spend: new HeldRunSpend(now),
    plan: newRunPlan(
      {
        paths,
        optionalSections: config.OPTIONAL_SECTIONS,
        requiresPlanComplete: config.EXIT_REQUIRES_PLAN_COMPLETE,
        dryRun: config.DRY_RUN,
        logger: readOptions.logger,
      },
      loadPlanMemory(paths, readOptions.logger),
    ),
    stall: new StallGuard(),
    conflicts: new CompletionConflicts(),
    consecutiveTransientFailures: 0,
    verify: initialVerificationTracker(),
    lastOutcome: 'unverified',
    loopCostBefore: 0,
    usageWait: holdUsageWait(paths, account ? undefined : loadUsageWait(paths, readOptions, longestWaitMs)),
    guards: new GuardRecord(),
  };
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
