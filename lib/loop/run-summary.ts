// The one summary every run ends with, in the terminal and in status.json (`run_summary`, which
// `ralph --status` prints): why it stopped, tasks done and left, loops, cost, time, commits, and
// the next command to run. Pure: the caller gathers the facts when the run ends.
//
// Loops have one name for the user: "loops run", the loops that got past their guards and called
// the agent in this ralph process. status.json keeps the Bash tool's `loop_count`, the loop number
// reached, which counts the loop whose guards stopped the run (one more than the loops run when
// a guard stopped it); `loops_run` is the count shown everywhere, and `run_loops` the loops of the
// whole run, a resumed one's earlier loops included.

import { describeExitCode, EXIT } from '../errors.js';

export interface RunSummaryFacts {
  exitCode: number;
  exitReason: string;
  /** Loops run in this ralph process (status.json `loops_run`). */
  loopsRun: number;
  /** The recorded run this process worked on, and its loops in all (status.json `run_loops`). */
  run?: { id: string; loops: number };
  /** fix_plan.md's blocking items when the run ended; null: no plan file. */
  plan: { done: number; open: number } | null;
  costUsd: number;
  /** Agent calls whose cost is unknown (cut off before the CLI reported it). */
  unknownCostCalls: number;
  elapsedMs: number;
  /** Commits made in the project since the run started; null: no git repository. */
  commits: number | null;
  /**
   * Ticked items whose tick no evidence backs (no content change, no passing gate), as the plan's
   * evidence judge counts them; absent when nothing judged them. Shown beside the tasks done.
   */
  ticksWithoutEvidence?: number;
  /** A dry run (no agent was called). */
  dryRun?: boolean;
  /** The next command, when the caller knows it better than the exit code does. */
  next?: string;
}

/** status.json's `run_summary`: the figures, the next command, and the lines as printed. */
// A type, not an interface: it is stored in status.json's loose object.
export type ClosingSummary = {
  outcome: string;
  exit_code: number;
  exit_reason: string;
  tasks_done: number | null;
  tasks_left: number | null;
  ticks_without_evidence?: number;
  loops_run: number;
  run_loops: number | null;
  run_id: string | null;
  cost_usd: number;
  unknown_cost_calls: number;
  elapsed_seconds: number;
  commits: number | null;
  next: string;
  lines: string[];
};

export function summarizeRun(facts: RunSummaryFacts): ClosingSummary {
  const next = facts.next ?? nextCommand(facts);
  const summary: ClosingSummary = {
    outcome: describeExitCode(facts.exitCode),
    exit_code: facts.exitCode,
    exit_reason: facts.exitReason,
    tasks_done: facts.plan?.done ?? null,
    tasks_left: facts.plan?.open ?? null,
    ...(facts.ticksWithoutEvidence !== undefined ? { ticks_without_evidence: facts.ticksWithoutEvidence } : {}),
    loops_run: facts.loopsRun,
    run_loops: facts.run?.loops ?? null,
    run_id: facts.run?.id ?? null,
    cost_usd: Number(facts.costUsd.toFixed(6)),
    unknown_cost_calls: facts.unknownCostCalls,
    elapsed_seconds: Math.round(facts.elapsedMs / 1000),
    commits: facts.commits,
    next,
    lines: [],
  };
  summary.lines = formatSummaryLines(facts, summary);
  return summary;
}

function formatSummaryLines(facts: RunSummaryFacts, s: ClosingSummary): string[] {
  const unknown = facts.unknownCostCalls > 0 ? ` (+ ${facts.unknownCostCalls} call(s) of unknown cost)` : '';
  const otherLoops = facts.run && facts.run.loops > facts.loopsRun ? ` (${facts.run.loops} in run ${facts.run.id}, resumed)` : '';
  return [
    `Run summary${facts.dryRun ? ' (dry run: no agent was called)' : ''}`,
    `  Stopped:  ${s.outcome} (exit reason: ${facts.exitReason || 'none recorded'}, exit code ${facts.exitCode})`,
    `  Tasks:    ${describeTasks(facts)}`,
    `  Loops:    ${facts.loopsRun}${otherLoops}`,
    `  Cost:     $${facts.costUsd.toFixed(2)}${unknown}`,
    `  Time:     ${formatRunTime(facts.elapsedMs)}`,
    `  Commits:  ${facts.commits === null ? 'none (not a git repository)' : facts.commits}`,
    `  Next:     ${s.next}`,
  ];
}

function describeTasks({ plan, ticksWithoutEvidence }: RunSummaryFacts): string {
  if (!plan) return 'no fix_plan.md';
  if (plan.done + plan.open === 0) return 'none in fix_plan.md';
  const unbacked = ticksWithoutEvidence ? ` (${ticksWithoutEvidence} ticked without evidence)` : '';
  return `${plan.done} done${unbacked}, ${plan.open} left`;
}

/** The command to run next, with what it is for. */
export function nextCommand(facts: Pick<RunSummaryFacts, 'exitCode' | 'exitReason' | 'plan' | 'commits' | 'dryRun'>): string {
  const left = facts.plan?.open ?? 0;
  if (facts.dryRun) return 'ralph (the same run, calling the agent)';
  switch (facts.exitCode) {
    case EXIT.ok:
      if (left > 0) return `ralph (${left} task(s) are still open in fix_plan.md)`;
      if (facts.commits === null) return 'review the changed files (no git here: git init to track them); add tasks to fix_plan.md for another run';
      return facts.commits
        ? `git log --oneline -${facts.commits} (review the run's commits)`
        : 'git status (review the changes; add tasks to fix_plan.md for another run)';
    case EXIT.halted:
      // stagnation_detected: the circuit breaker opened (the Bash tool's exit reason for it).
      return facts.exitReason === 'stagnation_detected'
        ? 'ralph --circuit-status (why it halted), fix the cause, then ralph --reset-circuit && ralph'
        : 'read the halt message above, fix the cause, then ralph';
    case EXIT.limit:
      return 'ralph (a new run; raise the limit with its flag or .ralphrc key if it was too low)';
    default:
      return facts.exitCode > 128 ? 'ralph (resumes the run)' : 'ralph --doctor (what is missing), then ralph';
  }
}

/** `1h 02m 03s`, `4m 05s`, `7s`. */
export function formatRunTime(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m ${pad(s)}s`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}
