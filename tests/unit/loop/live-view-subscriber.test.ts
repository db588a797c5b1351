// The live view as a subscriber: an agent call's events in, live.log and progress.json written
// by the real display and status writer.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentDisplay, subscribeLiveView } from '../../../lib/agent-run/agent-display.js';
import { LoopEvents } from '../../../lib/loop/events.js';
import { StatusWriter } from '../../../lib/loop/status-writer.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('subscribeLiveView', () => {
  it('follows an agent call: the loop header, the agent text, the last tool in progress.json', () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-live-sub-'));
    mkdirSync(join(dir, '.ralph'));
    const paths = ralphPaths(dir);
    const clock = fakeClock();
    const status = new StatusWriter({ paths, clock, maxCallsPerHour: 100, maxTokensPerHour: 0, maxLoops: 0, maxCostUsd: 0, startedAt: clock.now() });
    const quiet = { write() {}, isTTY: false, columns: 100 };
    const display = new AgentDisplay({ paths, clock, stdout: quiet, live: false, showToolArgs: false, status, redact: (t) => t });
    const events = new LoopEvents();
    subscribeLiveView(events, display);
    const progress = () => JSON.parse(readFileSync(paths.progress, 'utf8')) as Record<string, unknown>;

    events.emit('agent:started', { loop: 3, agentLabel: 'Claude Code', argv: ['claude'], outputLogPath: 'x.log' });
    expect(progress()).toMatchObject({ status: 'executing', elapsed_seconds: 0, last_output: '' });
    events.emit('agent:activity', { loop: 3, activity: { text: 'reading the plan\n', tool: 'Read: fix_plan.md' } });
    events.emit('agent:finished', { loop: 3, kind: 'completed', exitCode: 0, durationMs: 1000 });
    expect(progress()).toMatchObject({ status: 'executing', last_output: 'Read: fix_plan.md' });
    const live = readFileSync(paths.liveLog, 'utf8');
    expect(live).toMatch(/^=== Loop #3 - /);
    expect(live).toContain('reading the plan\n');
  });
});
