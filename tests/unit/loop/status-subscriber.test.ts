// status.json as a subscriber: an event in, the file written by the real StatusWriter, with the
// Bash tool's last_action / status / exit_reason for that event and the counters of that moment.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { subscribeStatus, type RunCounters } from '../../../lib/loop/status-subscriber.js';
import { StatusWriter } from '../../../lib/loop/status-writer.js';
import { ralphPaths, type RalphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function setup(): { events: LoopEvents; counters: RunCounters; read: () => Record<string, unknown> } {
  dir = mkdtempSync(join(tmpdir(), 'ralph-status-sub-'));
  mkdirSync(join(dir, '.ralph'));
  const paths: RalphPaths = ralphPaths(dir);
  const clock = fakeClock();
  const writer = new StatusWriter({ paths, clock, maxCallsPerHour: 100, maxTokensPerHour: 0, maxLoops: 0, maxCostUsd: 0, startedAt: clock.now() });
  const counters: RunCounters = { loopCount: 1, callsThisHour: 1, tokensThisHour: 0, agent: 'claude', alerts: [] };
  const events = new LoopEvents();
  subscribeStatus(events, writer, () => counters);
  return { events, counters, read: () => JSON.parse(readFileSync(paths.status, 'utf8')) as Record<string, unknown> };
}

describe('subscribeStatus', () => {
  it('says a loop is running when its call is about to be made, with the counters of that moment', () => {
    const { events, read } = setup();
    events.emit('iteration:started', { loop: 1 });
    expect(read()).toMatchObject({
      loop_count: 1,
      calls_made_this_hour: 1,
      max_calls_per_hour: 100,
      last_action: 'executing',
      status: 'running',
      exit_reason: '',
      agent: 'claude',
    });
  });

  it('says how a loop ended when the run goes on', () => {
    const { events, counters, read } = setup();
    events.emit('iteration:ended', { loop: 1, status: 'success' });
    expect(read()).toMatchObject({ last_action: 'completed', status: 'success', exit_reason: '' });
    counters.loopCount = 2;
    events.emit('iteration:ended', { loop: 2, status: 'error' });
    expect(read()).toMatchObject({ loop_count: 2, last_action: 'failed', status: 'error' });
  });

  it('shows a usage limit with its reset time, and each wait as paused', () => {
    const { events, read } = setup();
    const resumeAt = Date.parse('2026-11-30T05:00:00Z');
    events.emit('usage-limit:reached', { loop: 1, resumeAt, reason: 'limit' });
    expect(read()).toMatchObject({ last_action: 'api_limit', status: 'paused', usage_limit_resets_at: '2026-11-30T05:00:00+00:00' });
    events.emit('limit:waiting', { kind: 'usage', resumeAt, reason: 'limit' });
    expect(read()).toMatchObject({ last_action: 'api_limit', status: 'paused', usage_limit_resets_at: '2026-11-30T05:00:00+00:00' });
    events.emit('limit:waiting', { kind: 'rate', resumeAt, reason: 'calls' });
    expect(read()).toMatchObject({ last_action: 'rate_limited', status: 'paused' });
    expect(read()).not.toHaveProperty('usage_limit_resets_at');
    events.emit('limit:waiting', { kind: 'backoff', resumeAt, reason: 'overloaded' });
    expect(read()).toMatchObject({ last_action: 'api_retry', status: 'paused', exit_reason: '' });
  });

  it('has the final status on disk when run:finished returns', () => {
    const { events, read } = setup();
    events.emit('run:finished', { status: 'halted', exitReason: 'stagnation_detected', lastAction: 'circuit_breaker_open', exitCode: 2 });
    expect(read()).toMatchObject({ last_action: 'circuit_breaker_open', status: 'halted', exit_reason: 'stagnation_detected' });
  });
});
