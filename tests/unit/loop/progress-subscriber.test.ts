// progress.json as a subscriber: how the agent call ended, then the verification gate running
// and its verdict, each written by the real StatusWriter in the Bash tool's field names.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { subscribeProgress } from '../../../lib/loop/progress-subscriber.js';
import { StatusWriter } from '../../../lib/loop/status-writer.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function setup(): { events: LoopEvents; read: () => Record<string, unknown> } {
  dir = mkdtempSync(join(tmpdir(), 'ralph-progress-sub-'));
  mkdirSync(join(dir, '.ralph'));
  const paths = ralphPaths(dir);
  const clock = fakeClock();
  const writer = new StatusWriter({ paths, clock, maxCallsPerHour: 100, maxTokensPerHour: 0, maxLoops: 0, maxCostUsd: 0, startedAt: clock.now() });
  const events = new LoopEvents();
  subscribeProgress(events, writer);
  return { events, read: () => JSON.parse(readFileSync(paths.progress, 'utf8')) as Record<string, unknown> };
}

const gate = { loop: 1, passed: 4, failed: 1, skipped: 0, durationMs: 2300, outcome: 'regressed', failing: ['a'] };

describe('subscribeProgress', () => {
  it('says how the agent call ended', () => {
    const { events, read } = setup();
    events.emit('agent:judged', { loop: 1, outcome: 'ok', isError: false, filesChanged: 2 });
    expect(read()).toEqual({ status: 'completed', timestamp: expect.any(String) });
    events.emit('agent:judged', { loop: 2, outcome: 'timed_out_productive', isError: false, filesChanged: 3 });
    expect(read()).toEqual({ status: 'timed_out_productive', files_changed: 3, timestamp: expect.any(String) });
    events.emit('agent:judged', { loop: 3, outcome: 'failed', isError: true, filesChanged: 0 });
    expect(read()).toEqual({ status: 'failed', error: 'is_error:true', timestamp: expect.any(String) });
    events.emit('agent:judged', { loop: 4, outcome: 'timeout', isError: false, filesChanged: 0 });
    expect(read()).toEqual({ status: 'failed', timestamp: expect.any(String) });
  });

  it('shows the gate running its first command, then its verdict', () => {
    const { events, read } = setup();
    events.emit('verification:started', { loop: 1, commands: ['npm test', 'npm run lint'] });
    expect(read()).toMatchObject({ status: 'verifying', last_output: 'npm test' });
    events.emit('verification:completed', { ...gate, status: 'failed' });
    expect(read()).toMatchObject({ status: 'gate_failed', last_output: 'Verification gate FAILED in 2.3s: 1 failing, 4 passing, 0 skipped' });
    events.emit('verification:completed', { ...gate, status: 'passed', failed: 0 });
    expect(read()).toMatchObject({ status: 'gate_passed' });
    events.emit('verification:completed', { ...gate, status: 'not-verified', passed: 0, failed: 0 });
    expect(read()).toMatchObject({ status: 'gate_not_verified' });
  });
});
