// --notify: which loop events notify, with the Bash tool's titles; the notifier argv per
// platform (never a shell string); secrets never in a message; and a notifier that fails,
// throws or is missing never disturbs the loop.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { appleScriptString, attachNotifications, chooseNotifier, describeLimitWait, describeRunFinished } from '../../../lib/loop/notifications.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import type { ProcessRunner, RunOptions, RunResult } from '../../../lib/platform/process.js';
import { captureOutput } from '../../helpers/loop-harness.js';

const binDir = mkdtempSync(join(tmpdir(), 'ralph-notify-bin-'));
afterAll(() => rmSync(binDir, { recursive: true, force: true }));
writeFileSync(join(binDir, 'notify-send'), '#!/bin/sh\nexit 0\n');
chmodSync(join(binDir, 'notify-send'), 0o755);

interface Sent {
  cmd: string;
  args: readonly string[];
  options?: RunOptions;
}

function recordingRunner(behaviour: 'ok' | 'reject' | 'throw' = 'ok'): ProcessRunner & { sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    run(cmd, args, options) {
      sent.push({ cmd, args, options });
      if (behaviour === 'throw') throw new Error('spawn exploded');
      if (behaviour === 'reject') return Promise.reject(new Error('notifier crashed'));
      return Promise.resolve<RunResult>({ code: 0, signal: null, stdout: '', stderr: '', timedOut: false, aborted: false, pipesHeldOpen: false });
    },
    start: () => {
      throw new Error('not used');
    },
  };
}

function setup(options: { runner?: ReturnType<typeof recordingRunner>; path?: string; env?: NodeJS.ProcessEnv; tty?: boolean } = {}) {
  const events = new LoopEvents();
  const runner = options.runner ?? recordingRunner();
  const stderr = captureOutput(options.tty ?? false);
  const handle = attachNotifications(events, {
    env: { PATH: options.path ?? binDir, ...options.env },
    processRunner: runner,
    logger: createMemoryLogger(),
    stderr,
    platform: 'linux',
    timeoutMs: 1234,
  });
  return { events, runner, stderr, handle };
}

const finished = (exitCode: number, exitReason: string, status = 'stopped', lastAction = '') => ({ status, exitReason, lastAction, exitCode });
const iteration = (loop: number, success: boolean, outcome: string) => ({
  loop,
  success,
  outcome,
  durationMs: 1000,
  calls: 1,
  filesChanged: 0,
  exitSignal: false,
  tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
  costUsd: 0,
});

describe('what notifies', () => {
  it.each([
    [finished(0, 'plan_complete', 'completed', 'graceful_exit'), 'Ralph - Complete', 'plan complete'],
    [finished(2, 'stagnation_detected', 'halted', 'circuit_breaker_open'), 'Ralph - Circuit Breaker', 'Circuit breaker opened'],
    [finished(2, 'permission_denied', 'halted', 'permission_denied'), 'Ralph - Halted', 'permission denied'],
    [finished(3, 'api_5hour_limit', 'stopped', 'api_limit_exit'), 'Ralph - API Limit', 'usage limit'],
    [finished(3, 'cost_budget_exhausted', 'stopped', 'budget_reached'), 'Ralph - Cost Limit', '--max-cost'],
    [finished(3, 'max_loops_reached', 'stopped', 'budget_reached'), 'Ralph - Stopped', 'max loops reached'],
    [finished(1, 'authentication_failed', 'stopped', 'failed'), 'Ralph - Error', 'authentication failed'],
  ])('run end %j → %s', (payload, title, words) => {
    const n = describeRunFinished(payload)!;
    expect(n.title).toBe(title);
    expect(n.message).toContain(words);
  });

  it('stays quiet when the user interrupted the run', () => {
    expect(describeRunFinished(finished(130, 'interrupted'))).toBeUndefined();
    expect(describeRunFinished(finished(143, 'interrupted'))).toBeUndefined();
  });

  it('notifies usage- and rate-limit waits with the resume time, not retry back-offs', () => {
    const resumeAt = new Date(2026, 10, 30, 17, 5).getTime();
    expect(describeLimitWait({ kind: 'usage', resumeAt, reason: 'x' })).toEqual({
      title: 'Ralph - API Limit',
      message: 'Claude usage limit reached; ralph waits until 17:05',
    });
    expect(describeLimitWait({ kind: 'rate', resumeAt, reason: 'x' })?.title).toBe('Ralph - Rate Limit');
    expect(describeLimitWait({ kind: 'backoff', resumeAt, reason: 'x' })).toBeUndefined();
  });
});

describe('notifier command', () => {
  const n = { title: 'Ralph - Complete', message: 'He said "done" \\ ok' };
  it('uses osascript on macOS with the text escaped for AppleScript', () => {
    expect(chooseNotifier(n, { platform: 'darwin', hasCommand: () => true })).toEqual({
      cmd: 'osascript',
      args: ['-e', 'display notification "He said \\"done\\" \\\\ ok" with title "Ralph - Complete"'],
    });
  });
  it('uses notify-send with title and message as separate arguments', () => {
    expect(chooseNotifier(n, { platform: 'linux', hasCommand: (c) => c === 'notify-send' })).toEqual({ cmd: 'notify-send', args: [n.title, n.message] });
    expect(chooseNotifier(n, { platform: 'darwin', hasCommand: (c) => c === 'notify-send' })).toEqual({ cmd: 'notify-send', args: [n.title, n.message] });
  });
  it('falls back to the bell', () => {
    expect(chooseNotifier(n, { platform: 'linux', hasCommand: () => false })).toEqual({ bell: true });
  });
  it('escapes AppleScript strings', () => {
    expect(appleScriptString('a"b\\c')).toBe('"a\\"b\\\\c"');
  });
});

describe('attachNotifications', () => {
  it('sends a completion notification through notify-send, bounded by the timeout', async () => {
    const { events, runner, handle } = setup();
    events.emit('run:finished', finished(0, 'project_complete', 'completed', 'graceful_exit'));
    await handle.settled();
    expect(runner.sent).toHaveLength(1);
    expect(runner.sent[0]).toMatchObject({ cmd: 'notify-send', args: ['Ralph - Complete', 'Ralph finished: project complete'] });
    expect(runner.sent[0]!.options?.timeoutMs).toBe(1234);
  });

  it('notifies the first failing loop of a streak only', async () => {
    const { events, runner, handle } = setup();
    events.emit('iteration:completed', iteration(1, false, 'failed'));
    events.emit('iteration:completed', iteration(2, false, 'timeout'));
    events.emit('iteration:completed', iteration(3, true, 'ok'));
    events.emit('iteration:completed', iteration(4, false, 'failed'));
    events.emit('iteration:completed', iteration(5, false, 'transient'));
    await handle.settled();
    expect(runner.sent.map((s) => s.args[1])).toEqual(['Loop #1 failed (failed); ralph will retry', 'Loop #4 failed (failed); ralph will retry']);
  });

  it('keeps secrets out of messages', async () => {
    const key = 'sk-ant-api03-secretsecretsecret';
    const { events, runner, handle } = setup({ env: { ANTHROPIC_API_KEY: key } });
    events.emit('run:finished', finished(1, `bad_key_${key}`));
    await handle.settled();
    expect(JSON.stringify(runner.sent[0]!.args)).not.toContain('secretsecret');
    expect(runner.sent[0]!.args[1]).toContain('[REDACTED]');
  });

  it.each(['reject', 'throw'] as const)('never lets a notifier that fails (%s) reach the loop', async (behaviour) => {
    const { events, runner, handle } = setup({ runner: recordingRunner(behaviour) });
    expect(() => events.emit('run:finished', finished(0, 'plan_complete'))).not.toThrow();
    await expect(handle.settled()).resolves.toBeUndefined();
    expect(runner.sent).toHaveLength(1);
  });

  it('rings the bell on a terminal when no notifier is installed', async () => {
    const { events, runner, stderr } = setup({ path: join(binDir, 'none'), tty: true });
    events.emit('run:finished', finished(0, 'plan_complete'));
    expect(runner.sent).toHaveLength(0);
    expect(stderr.text).toBe('\x07');
  });

  it('writes no bell into a log file', () => {
    const { events, stderr } = setup({ path: join(binDir, 'none'), tty: false });
    events.emit('run:finished', finished(0, 'plan_complete'));
    expect(stderr.text).toBe('');
  });
});
