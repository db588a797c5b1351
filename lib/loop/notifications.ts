// `--notify`: desktop notifications for the moments a person away from the terminal cares
// about — the run finished, halted or stopped at a limit, a usage/rate-limit wait began, a loop
// failed. A subscriber to the loop events: it never blocks the loop and never fails it. Titles
// are the Bash tool's (`Ralph - Complete`, `Ralph - Circuit Breaker`, …); the command is
// `osascript` on macOS, `notify-send` elsewhere, else a terminal bell.

import { createRedactor, type Redactor } from '../text/redaction.js';
import { findHostTool } from '../platform/find-executable.js';
import type { Logger, Output } from '../platform/deps.js';
import type { ProcessRunner } from '../platform/process.js';
import type { LoopEventMap, LoopEvents } from './events.js';

export interface Notification {
  title: string;
  message: string;
}

export interface NotificationOptions {
  env: NodeJS.ProcessEnv;
  /** The run's redactor (default: one built from `env`). */
  redact?: Redactor;
  processRunner: ProcessRunner;
  logger: Logger;
  stderr: Output;
  /** Default: process.platform. */
  platform?: NodeJS.Platform;
  /** A notifier still running after this long is killed (default 5 s). */
  timeoutMs?: number;
}

export interface NotificationHandle {
  /** Resolves once every notification sent so far has finished or been given up on. */
  settled(): Promise<void>;
}

export type NotifierCommand = { cmd: string; args: string[] } | { bell: true };

const MAX_MESSAGE = 200;
// Failures that end up in a wait or a run stop get their own notification there.
const LOOP_FAILURES = new Set(['failed', 'timeout', 'prompt_too_long']);

export function attachNotifications(events: LoopEvents, options: NotificationOptions): NotificationHandle {
  const pending = new Set<Promise<void>>();
  const platform = options.platform ?? process.platform;
  let failing = false;
  const redact = options.redact ?? createRedactor(options.env);
  const send = (notification: Notification | undefined) => {
    if (!notification) return;
    try {
      const clean = sanitize(notification, redact);
      const command = chooseNotifier(clean, { platform, hasCommand: (name) => findHostTool(name, options.env) !== undefined });
      options.logger.debug(`Notification: ${clean.title}: ${clean.message}`);
      if ('bell' in command) {
        if (options.stderr.isTTY) options.stderr.write('\x07');
        return;
      }
      const run = options.processRunner
        .run(command.cmd, command.args, { env: options.env, timeoutMs: options.timeoutMs ?? 5000 })
        .then((result) => {
          if (result.spawnError || result.code !== 0) options.logger.debug(`${command.cmd} did not show the notification`);
        })
        .catch(() => undefined)
        .finally(() => pending.delete(run));
      pending.add(run);
    } catch {
      // A notification is never worth failing the loop for.
    }
  };

  events.on('run:finished', (p) => send(describeRunFinished(p)));
  events.on('limit:waiting', (p) => send(describeLimitWait(p)));
  events.on('iteration:completed', (p) => {
    const failed = !p.success && LOOP_FAILURES.has(p.outcome);
    // One notification per streak of failing loops, not one per loop.
    if (failed && !failing) send({ title: 'Ralph - Error', message: `Loop #${p.loop} failed (${p.outcome}); ralph will retry` });
    failing = failed || (failing && !p.success);
  });
  return {
    settled: async () => {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}

export function describeRunFinished(p: LoopEventMap['run:finished']): Notification | undefined {
  const reason = p.exitReason.replace(/_/g, ' ');
  if (p.exitCode === 130 || p.exitCode === 143) return undefined; // the user stopped it
  if (p.exitCode === 0) return { title: 'Ralph - Complete', message: `Ralph finished: ${reason}` };
  if (p.exitReason === 'stagnation_detected' || p.lastAction === 'circuit_breaker_open') {
    return { title: 'Ralph - Circuit Breaker', message: 'Circuit breaker opened: no progress, ralph halted. Run ralph --reset-circuit after fixing the cause' };
  }
  if (p.exitCode === 2) return { title: 'Ralph - Halted', message: `Ralph halted: ${reason}` };
  if (p.exitReason === 'api_5hour_limit') return { title: 'Ralph - API Limit', message: 'Ralph stopped at the Claude usage limit' };
  if (p.exitReason === 'cost_budget_exhausted') return { title: 'Ralph - Cost Limit', message: 'Ralph stopped: the --max-cost budget is spent' };
  if (p.exitCode === 3) return { title: 'Ralph - Stopped', message: `Ralph stopped at a limit: ${reason}` };
  return { title: 'Ralph - Error', message: `Ralph stopped with an error: ${reason}` };
}

export function describeLimitWait(p: LoopEventMap['limit:waiting']): Notification | undefined {
  const until = formatClock(p.resumeAt);
  if (p.kind === 'usage') return { title: 'Ralph - API Limit', message: `Claude usage limit reached; ralph waits until ${until}` };
  if (p.kind === 'rate') return { title: 'Ralph - Rate Limit', message: `Hourly call limit reached; ralph waits until ${until}` };
  return undefined; // short retry back-offs are not worth a notification
}

/** The notifier's argv (never a shell string), or the bell when none is installed. */
export function chooseNotifier(n: Notification, options: { platform: NodeJS.Platform; hasCommand: (name: string) => boolean }): NotifierCommand {
  if (options.platform === 'darwin' && options.hasCommand('osascript')) {
    return { cmd: 'osascript', args: ['-e', `display notification ${appleScriptString(n.message)} with title ${appleScriptString(n.title)}`] };
  }
  if (options.hasCommand('notify-send')) return { cmd: 'notify-send', args: [n.title, n.message] };
  return { bell: true };
}

/** An AppleScript string literal: backslashes and double quotes escaped. */
export function appleScriptString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function sanitize(n: Notification, redact: Redactor): Notification {
  const clean = (text: string) =>
    redact(text)
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .trim();
  const message = clean(n.message);
  return { title: clean(n.title), message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message };
}

function formatClock(ms: number): string {
  const d = new Date(ms);
  const pad = (v: number) => String(v).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
