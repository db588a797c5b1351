// Two processes changing .ralph/queue.json at once (`ralph-queue add` while `ralph-queue process`
// saves an item's status): each change is one read-modify-write under the queue's lock, so none
// is lost. Real processes, each adding its own items through the store as fast as it can.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../../lib/state/file-lock.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const ADDS = 150;
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A process that opens the store and adds ADDS items named `<tag>-<n>`, one update each. */
function adder(queuePath: string, tag: string): Promise<number | null> {
  const store = new URL('../../../dist/queue/queue-store.js', import.meta.url).href;
  const clock = new URL('../../../dist/platform/clock.js', import.meta.url).href;
  const script = `
    const { openQueueStore } = await import(${JSON.stringify(store)});
    const { systemClock } = await import(${JSON.stringify(clock)});
    const logger = { info() {}, warn() {}, error() {}, success() {}, debug() {}, log() {} };
    const queue = openQueueStore(${JSON.stringify(queuePath)}, { clock: systemClock, logger });
    for (let n = 0; n < ${ADDS}; n++) {
      queue.update((file, now) => ({ ...file, queue: [...file.queue, { source: 'prd', id: '${tag}-' + n, title: 't', status: 'pending', priority: '', path: null, added_at: now }] }));
    }`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', resolve);
  });
}

describe('queue.json changed by two processes at once', () => {
  it('keeps every change of both', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-queue-lock-'));
    const queuePath = join(dir, 'queue.json');
    const codes = await Promise.all([adder(queuePath, 'a'), adder(queuePath, 'b')]);
    expect(codes).toEqual([0, 0]);
    const ids = (JSON.parse(readFileSync(queuePath, 'utf8')) as { queue: Array<{ id: string }> }).queue.map((item) => item.id);
    expect(ids).toHaveLength(2 * ADDS);
    expect(existsSync(`${queuePath}.lock`)).toBe(false);
  });
});

describe('withFileLock', () => {
  it('takes over a lock whose holder is gone, and names a live holder when it gives up', () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-file-lock-'));
    const lock = join(dir, 'x.lock');
    writeFileSync(lock, '999999\n');
    expect(withFileLock(lock, () => 'ran', { isAlive: () => false })).toBe('ran');
    expect(existsSync(lock)).toBe(false);

    writeFileSync(lock, '4242\n');
    let clock = 0;
    const waits: number[] = [];
    expect(() =>
      withFileLock(lock, () => 'never', { isAlive: () => true, timeoutMs: 50, now: () => clock, sleep: (ms) => (waits.push(ms), (clock += ms)) }),
    ).toThrow(`${lock} is held by another process (pid 4242)`);
    expect(waits.length).toBe(5);
    expect(readFileSync(lock, 'utf8')).toBe('4242\n');
  });

  it('never follows a link planted where the lock goes', () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-file-lock-'));
    const target = join(dir, 'target');
    writeFileSync(target, 'keep\n');
    const lock = join(dir, 'x.lock');
    symlinkSync(target, lock);
    expect(() => withFileLock(lock, () => 'never', { isAlive: () => true, timeoutMs: 0, now: () => 0, sleep: () => undefined })).toThrow(
      /is held by another process/,
    );
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
  });
});
