// Everything one run of the loop carries from step to step: configuration, paths, effects,
// and the few counters that change as it goes. Built once by run-loop.ts.

import type { ClaudeRunHandle } from '../agents/claude-run.js';
import type { RalphConfig } from '../config/schema.js';
import type { CompletionConflict } from '../core/exit-gate.js';
import type { RateWindowState } from '../core/rate-window.js';
import type { Deps } from '../platform/deps.js';
import type { RalphPaths } from '../state/paths.js';
import type { StateReadOptions } from '../state/state-file.js';
import type { AgentDisplay } from './agent-display.js';
import type { LoopEvents } from './events.js';
import type { RunState } from './guard-store.js';
import type { StatusWriter } from './status-writer.js';
import type { StopSignal } from './stop-signal.js';

export interface LoopRuntime {
  config: RalphConfig;
  paths: RalphPaths;
  deps: Deps;
  state: StateReadOptions;
  /** CLAUDE_CODE_CMD as resolved at startup. */
  agentCommand: string;
  promptFile: string;
  status: StatusWriter;
  display: AgentDisplay;
  events: LoopEvents;
  stop: StopSignal;
  /** Loop number (Bash `loop_count`): counts iterations, shown in status.json. */
  loopCount: number;
  /** Agent calls made in this run. */
  callsMade: number;
  rate: RateWindowState;
  run: RunState;
  /** Consecutive loops whose completion claim fix_plan.md contradicted. */
  conflictCount: number;
  /** The completion conflict the exit gate saw before this loop, told to the agent. */
  lastConflict?: CompletionConflict;
  consecutiveTransientFailures: number;
  /** The agent run in flight, so a signal can interrupt it. */
  current?: ClaudeRunHandle;
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
}

export const CONTINUE: StepResult = { kind: 'continue' };
