// Should the loop stop? The Bash tool's exit reasons with one deliberate
// change: machine evidence beats claims. A completion claim while fix_plan.md still has
// blocking unchecked items does not end the run; the next loop is told which items are open,
// and after COMPLETION_CONFLICT_LIMIT such loops in a row the run halts (completion_conflict).
// Pure.
//
// Order, first match wins (test_saturation and the claims only with no open plan item):
//   permission_denied → test_saturation → (completion conflict) → project_complete →
//   safety_circuit_breaker → completion_signals → plan_complete
// project_complete and safety_circuit_breaker come before completion_signals (the Bash tool
// checks them after it, which made them unreachable): the stronger evidence names the reason.
// With EXIT_REQUIRES_PLAN_COMPLETE=false the Bash order is kept, so that one key
// restores the Bash behaviour, reasons included: completion_signals → safety_circuit_breaker →
// project_complete.

import { isPlanComplete, type PlanView } from '../plan/fix-plan.js';
import { emptyExitSignals, type ExitSignalsState } from './exit-signals.js';
import type { ResponseAnalysis } from '../analysis/response-analysis.js';

export interface ExitGateConfig {
  /** MAX_CONSECUTIVE_TEST_LOOPS (3). */
  maxConsecutiveTestLoops: number;
  /** MAX_CONSECUTIVE_DONE_SIGNALS (2). */
  maxConsecutiveDoneSignals: number;
  /** EXIT_REQUIRES_PLAN_COMPLETE (true); false restores the Bash behaviour. */
  exitRequiresPlanComplete: boolean;
  /** COMPLETION_CONFLICT_LIMIT (3). */
  completionConflictLimit: number;
}

/** completion_indicators needed, with the latest EXIT_SIGNAL true, for project_complete. */
export const PROJECT_COMPLETE_INDICATORS = 2;
/** completion_indicators that end the run whatever the latest loop said. */
export const SAFETY_COMPLETION_INDICATORS = 5;

export interface ExitGateInput {
  /** `.exit_signals`; null when missing (treated as empty). */
  exitSignals: ExitSignalsState | null;
  /** The latest `.response_analysis`, or null (none yet, or the last analysis failed). */
  analysis: ResponseAnalysis | null;
  /** fix_plan.md parsed, or null when there is no plan file. */
  plan: PlanView | null;
  config: ExitGateConfig;
  /** Consecutive loops before this one whose completion claim the plan contradicted. */
  conflictCount: number;
}

export type ClaimExitReason = 'project_complete' | 'safety_circuit_breaker' | 'completion_signals';

export type ExitReason = 'permission_denied' | 'test_saturation' | ClaimExitReason | 'plan_complete' | 'completion_conflict';

export interface CompletionConflict {
  /** Blocking unchecked fix_plan.md items, in file order. */
  openItems: string[];
  /** Consecutive conflicting loops including this one. */
  count: number;
  limit: number;
}

/** Denied compound commands whose base command is allowed (#243): a warning, not a halt. */
export interface CompoundCommandNotice {
  count: number;
  deniedCommands: string[];
}

export type ExitGateResult =
  | { kind: 'continue'; conflict?: CompletionConflict; compoundCommands?: CompoundCommandNotice }
  | {
      kind: 'exit';
      reason: ExitReason;
      outcome: 'completed' | 'halted';
      /** completion_conflict only: the items still open. */
      conflict?: CompletionConflict;
      compoundCommands?: CompoundCommandNotice;
    };

export function evaluateExitGate(input: ExitGateInput): ExitGateResult {
  const { config, plan } = input;
  const signals = input.exitSignals ?? emptyExitSignals();
  const a = input.analysis?.analysis ?? null;

  if (a?.has_permission_denials) return { kind: 'exit', reason: 'permission_denied', outcome: 'halted' };
  const notice: { compoundCommands?: CompoundCommandNotice } = a?.has_compound_command_limitation
    ? { compoundCommands: { count: a.compound_command_count, deniedCommands: a.denied_commands } }
    : {};

  const planOpen = config.exitRequiresPlanComplete && plan !== null && plan.blocking.open > 0;
  // Every exit that ends a run as done passes the plan check: test-only loops are a claim too.
  if (signals.test_only_loops.length >= config.maxConsecutiveTestLoops && !planOpen) {
    return { kind: 'exit', reason: 'test_saturation', outcome: 'completed', ...notice };
  }

  const latestClaim = a !== null && !a.is_error && a.exit_signal === true;
  if (planOpen && latestClaim) {
    const conflict: CompletionConflict = {
      openItems: plan.openItems,
      count: input.conflictCount + 1,
      limit: config.completionConflictLimit,
    };
    if (conflict.count >= conflict.limit) {
      return { kind: 'exit', reason: 'completion_conflict', outcome: 'halted', conflict, ...notice };
    }
    return { kind: 'continue', conflict, ...notice };
  }

  // Claims from earlier loops may still be in the window; with the plan open they wait.
  const claim = claimReason(signals, a?.exit_signal === true && !a.is_error, config);
  if (claim && !planOpen) return { kind: 'exit', reason: claim, outcome: 'completed', ...notice };

  if (plan && isPlanComplete(plan)) return { kind: 'exit', reason: 'plan_complete', outcome: 'completed', ...notice };
  return { kind: 'continue', ...notice };
}

/**
 * The conflict count to pass to the next evaluation. A loop without the claim resets it only
 * when it made progress (new content): an agent alternating EXIT_SIGNAL true/false without
 * working must not start the count again every other loop.
 */
export function nextConflictCount(previous: number, result: ExitGateResult, progressSinceLast: boolean): number {
  if (result.conflict) return previous + 1;
  return progressSinceLast ? 0 : previous;
}

function claimReason(signals: ExitSignalsState, latestExitSignal: boolean, config: ExitGateConfig): ClaimExitReason | null {
  const indicators = signals.completion_indicators.length;
  const projectComplete = indicators >= PROJECT_COMPLETE_INDICATORS && latestExitSignal;
  const safety = indicators >= SAFETY_COMPLETION_INDICATORS;
  const doneSignals = signals.done_signals.length >= config.maxConsecutiveDoneSignals;
  if (!config.exitRequiresPlanComplete) {
    if (doneSignals) return 'completion_signals';
    if (safety) return 'safety_circuit_breaker';
    return projectComplete ? 'project_complete' : null;
  }
  if (projectComplete) return 'project_complete';
  if (safety) return 'safety_circuit_breaker';
  if (doneSignals) return 'completion_signals';
  return null;
}
