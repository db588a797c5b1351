// status.json as a subscriber of the loop events: each event that changes what the run is doing
// writes the file once, with the Bash tool's last_action / status / exit_reason for it and the
// run's counters as they are at that moment.

import type { LoopEvents } from './events.js';
import type { RunState } from './run.js';
import type { StatusSnapshot, StatusWriter } from './status-writer.js';

/** What status.json shows besides what the event says: the run's counters, read when it is written. */
export type RunCounters = Omit<StatusSnapshot, 'lastAction' | 'status' | 'exitReason' | 'usageLimitResetsAt'>;

const LIMIT_ACTION = { rate: 'rate_limited', usage: 'api_limit', backoff: 'api_retry' } as const;

export function subscribeStatus(events: LoopEvents, writer: Pick<StatusWriter, 'write'>, counters: () => RunCounters): void {
  const write = (lastAction: string, status: string, exitReason = '', usageLimitResetsAt?: number) =>
    writer.write({ ...counters(), lastAction, status, exitReason, usageLimitResetsAt });
  events.on('iteration:started', () => write('executing', 'running'));
  events.on('iteration:ended', (e) => write(e.status === 'success' ? 'completed' : 'failed', e.status));
  events.on('usage-limit:reached', (e) => write('api_limit', 'paused', '', e.resumeAt));
  events.on('limit:waiting', (e) => write(LIMIT_ACTION[e.kind], 'paused', '', e.kind === 'usage' ? e.resumeAt : undefined));
  // Before the process exits: the final status is on disk when run:finished returns.
  events.on('run:finished', (e) => write(e.lastAction, e.status, e.exitReason));
}

/** The counters of a run, as status.json shows them. */
export function runCountersOf(state: RunState): RunCounters {
  return {
    loopCount: state.loopCount,
    loopsRun: state.lastLoopRun,
    callsThisHour: state.rate.value.calls,
    tokensThisHour: state.rate.value.tokens,
    spend: state.spend.value.spend,
    agent: state.agentChoice.agent.name,
    alerts: state.guards.alerts,
    planNote: state.plan.hiddenNote,
  };
}
