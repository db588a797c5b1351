// status.json and progress.json, in the Bash tool's field names (either version's monitor can
// read them), plus a few fields of ours: spend against the budgets, the pid, the usage-limit
// reset time. Every write is atomic.

import { formatNextReset } from '../limits/rate-window.js';
import type { SpendState } from '../limits/spend.js';
import type { Clock } from '../platform/clock.js';
import type { RalphPaths } from '../state/paths.js';
import type { SandboxStatus } from '../sandbox/sandbox.js';
import { MAX_RUN_ALERTS, type StatusFile } from '../state/schemas.js';
import { saveProgress, saveStatus } from '../state/store.js';
import { formatIsoTimestamp, formatLocalDateTime } from '../state/timestamps.js';
import type { ClosingSummary } from './run-summary.js';

export interface StatusSnapshot {
  /** The Bash tool's loop_count: the loop number reached, the one a guard stopped included. */
  loopCount: number;
  /** Loops that got past their guards and ran in this process (`loops_run`: the count users see). */
  loopsRun?: number;
  callsThisHour: number;
  tokensThisHour: number;
  lastAction: string;
  status: string;
  exitReason: string;
  spend?: SpendState;
  usageLimitResetsAt?: number;
  /** The agent the loop calls (AGENT_PROVIDER, or a fallback while it is limited). */
  agent?: string;
  /** What the guards undid or refused in this run (the last few). */
  alerts?: readonly string[];
  /** Open plan items the agent hid (or a plan ralph cannot read in full), as the log names them. */
  planNote?: string;
  /** The closing summary, once the run has ended. */
  summary?: ClosingSummary;
}

export interface StatusWriterOptions {
  paths: RalphPaths;
  clock: Clock;
  maxCallsPerHour: number;
  maxTokensPerHour: number;
  maxLoops: number;
  maxCostUsd: number;
  startedAt: number;
  /** The sandbox's state as the monitor shows it (default: none). */
  sandbox?: () => SandboxStatus;
}

export class StatusWriter {
  private last: StatusSnapshot | undefined;

  constructor(private readonly options: StatusWriterOptions) {}

  /** The closing summary, added to the final status (the run:finished write before it). */
  writeSummary(summary: ClosingSummary): void {
    if (this.last) this.write({ ...this.last, summary });
  }

  write(snapshot: StatusSnapshot): void {
    this.last = snapshot;
    const { clock, paths } = this.options;
    const now = clock.now();
    const status: StatusFile = {
      timestamp: formatIsoTimestamp(now),
      loop_count: snapshot.loopCount,
      calls_made_this_hour: snapshot.callsThisHour,
      max_calls_per_hour: this.options.maxCallsPerHour,
      tokens_used_this_hour: snapshot.tokensThisHour,
      max_tokens_per_hour: this.options.maxTokensPerHour,
      last_action: snapshot.lastAction,
      status: snapshot.status,
      exit_reason: snapshot.exitReason,
      sandbox: { ...(this.options.sandbox?.() ?? { provider: 'none' }) },
      next_reset: formatNextReset(now),
      pid: process.pid,
      started_at: formatIsoTimestamp(this.options.startedAt),
      max_loops: this.options.maxLoops,
      max_cost_usd: this.options.maxCostUsd,
    };
    if (snapshot.spend) {
      const t = snapshot.spend.run.tokens;
      status.run_tokens = t.input + t.output + t.cacheRead + t.cacheCreation;
      status.run_cost_usd = Number(snapshot.spend.run.costUsd.toFixed(6));
      status.run_loops = snapshot.spend.run.loops;
      status.run_unknown_cost_calls = snapshot.spend.run.unknownCostLoops;
    }
    if (snapshot.loopsRun !== undefined) status.loops_run = snapshot.loopsRun;
    if (snapshot.agent !== undefined) status.agent = snapshot.agent;
    if (snapshot.alerts?.length) status.run_alerts = snapshot.alerts.slice(-MAX_RUN_ALERTS);
    if (snapshot.planNote !== undefined) status.plan_note = snapshot.planNote;
    if (snapshot.summary !== undefined) status.run_summary = snapshot.summary;
    if (snapshot.usageLimitResetsAt !== undefined) status.usage_limit_resets_at = formatIsoTimestamp(snapshot.usageLimitResetsAt);
    saveStatus(paths, status);
  }

  progress(fields: { status: string; elapsedSeconds?: number; lastOutput?: string; filesChanged?: number; error?: string; indicator?: string }): void {
    const { clock, paths } = this.options;
    saveProgress(paths, {
      status: fields.status,
      ...(fields.indicator !== undefined ? { indicator: fields.indicator } : {}),
      ...(fields.elapsedSeconds !== undefined ? { elapsed_seconds: fields.elapsedSeconds } : {}),
      ...(fields.lastOutput !== undefined ? { last_output: fields.lastOutput.slice(0, 80) } : {}),
      ...(fields.filesChanged !== undefined ? { files_changed: fields.filesChanged } : {}),
      ...(fields.error !== undefined ? { error: fields.error } : {}),
      timestamp: formatLocalDateTime(clock.now()),
    });
  }
}
