// --notify with a real loop and a fake `notify-send` on PATH: the completion notification is
// delivered with the Bash tool's title, and a notifier that hangs is killed at its timeout
// instead of holding anything up.

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { attachNotifications } from '../../../lib/loop/notifications.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { captureOutput, loopProject } from '../../helpers/loop-harness.js';
import { isProcessRunning } from '../../helpers/process-state.js';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

/** A bin dir whose `notify-send` records its argv (and pid) as one JSON line per call. */
function fakeNotifySend(behaviour: 'record' | 'hang' = 'record') {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-fake-notify-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'notifications.jsonl');
  // sh, not node: it starts in milliseconds, so the record is written well inside the timeout;
  // `exec sleep` keeps the pid, so the test can check the hung notifier was killed.
  const script = [
    '#!/bin/sh',
    'printf \'{"pid":%s,"argv":["%s","%s"]}\\n\' "$$" "$1" "$2" >> "$NOTIFY_LOG"',
    behaviour === 'hang' ? 'exec sleep 600' : '',
  ].join('\n');
  writeFileSync(join(dir, 'notify-send'), script);
  chmodSync(join(dir, 'notify-send'), 0o755);
  const records = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { pid: number; argv: string[] })
      : [];
  return { env: { PATH: [dir, process.env.PATH ?? ''].join(delimiter), NOTIFY_LOG: log }, records };
}

describe('notifications', () => {
  it('tells the desktop when the loop completes', async () => {
    const notify = fakeNotifySend();
    const p = loopProject(
      { calls: [{ tickFixPlan: 'all', writeFiles: { 'done.txt': 'ok' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }] },
      { files: { '.ralph/fix_plan.md': '- [ ] the only task\n' } },
    );
    cleanups.push(() => p.cleanup());
    const events = new LoopEvents();
    const handle = attachNotifications(events, {
      env: { ...process.env, ...notify.env },
      processRunner: nodeProcessRunner,
      logger: createMemoryLogger(),
      stderr: captureOutput(),
      platform: 'linux',
    });
    const result = await p.run({}, { events });
    await handle.settled();
    expect(result.exitCode).toBe(0);
    expect(notify.records().map((r) => r.argv)).toEqual([['Ralph - Complete', 'Ralph finished: plan complete']]);
  });

  it('kills a notifier that hangs once its time is up', async () => {
    const notify = fakeNotifySend('hang');
    const events = new LoopEvents();
    const handle = attachNotifications(events, {
      env: { ...process.env, ...notify.env },
      processRunner: nodeProcessRunner,
      logger: createMemoryLogger(),
      stderr: captureOutput(),
      platform: 'linux',
      timeoutMs: 1000,
    });
    events.emit('limit:waiting', { kind: 'usage', resumeAt: Date.now() + 3_600_000, reason: 'limit' });
    await handle.settled();
    const [record] = notify.records();
    expect(record!.argv[0]).toBe('Ralph - API Limit');
    expect(isProcessRunning(record!.pid)).toBe(false);
  });
});
