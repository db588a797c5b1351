// The run's outputs: its events and what hears them (status.json, metrics.jsonl, progress.json,
// the live view, notifications), attached once when the run starts, in the order they hear.

import { AgentDisplay, subscribeLiveView } from '../agent-run/agent-display.js';
import type { RalphConfig } from '../config/schema.js';
import type { SharedAccount } from '../limits/shared-account.js';
import type { Deps } from '../platform/deps.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { RalphPaths } from '../state/paths.js';
import { LoopEvents } from './events.js';
import { subscribeMetrics } from './metrics-subscriber.js';
import { attachNotifications } from './notifications.js';
import { subscribeProgress } from './progress-subscriber.js';
import type { RunState } from './run.js';
import { runCountersOf, subscribeStatus } from './status-subscriber.js';
import { StatusWriter } from './status-writer.js';

interface OutputOptions {
  readonly deps: Deps;
  /** An embedder's listeners: they hear each event after the run's own outputs. */
  readonly events?: LoopEvents;
  readonly account?: SharedAccount;
}

interface OutputPlace {
  readonly config: RalphConfig;
  readonly paths: RalphPaths;
  readonly sandbox: Sandbox;
}

/** The run's events and what hears them: status.json, metrics, progress, the live view, notifications. */
export function attachOutputs(options: OutputOptions, prepared: OutputPlace, state: RunState, startedAt: number) {
  const { deps } = options;
  const { config, paths, sandbox } = prepared;
  // The run's own outputs hear each event first; an embedder's listeners (options.events) after them.
  const events = new LoopEvents();
  if (options.events) events.forwardTo(options.events);
  const status = new StatusWriter({
    paths,
    clock: deps.clock,
    maxCallsPerHour: config.MAX_CALLS_PER_HOUR,
    maxTokensPerHour: config.MAX_TOKENS_PER_HOUR,
    maxLoops: config.MAX_LOOPS,
    maxCostUsd: config.MAX_COST_USD,
    startedAt,
    sandbox: () => sandbox.status(),
  });
  const display = new AgentDisplay({
    paths,
    clock: deps.clock,
    stdout: deps.stdout,
    live: config.LIVE_OUTPUT,
    showToolArgs: config.LIVE_SHOW_TOOL_ARGS,
    status,
    redact: deps.redact,
    warn: (message) => deps.logger.warn(message),
  });
  // The run's own files before notifications: a notification never tells of what they do not show yet.
  subscribeStatus(events, status, () => runCountersOf(state));
  subscribeMetrics(events, { paths, logger: deps.logger, account: options.account });
  subscribeProgress(events, status);
  subscribeLiveView(events, display);
  const notifications = config.ENABLE_NOTIFICATIONS
    ? attachNotifications(events, { env: deps.env, redact: deps.redact, processRunner: deps.processRunner, logger: deps.logger, stderr: deps.stderr })
    : undefined;
  return { events, status, notifications };
}
