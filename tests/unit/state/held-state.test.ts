import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countCall } from '../../../lib/limits/rate-window.js';
import { holdRateWindow } from '../../../lib/limits/limits-store.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-held-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.ralph'));
  return ralphPaths(dir);
}

const NOW = Date.parse('2026-11-30T04:10:00Z');
const inode = (path: string) => statSync(path).ino;

describe('the rate window held for a run', () => {
  it('starts a fresh window when no file names an hour, and flush writes all three files', () => {
    const paths = project();
    const rate = holdRateWindow(paths, { calls: 0, tokens: 0, lastReset: '' }, fakeClock(NOW));
    expect(rate.value.lastReset).toMatch(/^\d{10}$/);
    expect(existsSync(paths.callCount)).toBe(false);
    rate.flush();
    expect([paths.callCount, paths.tokenCount, paths.lastReset].map((p) => readFileSync(p, 'utf8').trim())).toEqual(['0', '0', rate.value.lastReset]);
  });

  it('writes a file only when its value changes, and reads from memory, not back from disk', () => {
    const paths = project();
    const rate = holdRateWindow(paths, { calls: 4, tokens: 100, lastReset: '2026113004' }, fakeClock(NOW));
    rate.flush();
    const before = { tokens: inode(paths.tokenCount), lastReset: inode(paths.lastReset), calls: inode(paths.callCount) };
    rate.set(rate.value);
    expect(inode(paths.callCount)).toBe(before.calls);
    rate.set(countCall(rate.value));
    expect(readFileSync(paths.callCount, 'utf8').trim()).toBe('5');
    // Atomic writes replace the file: a new inode for the one that changed, the same for the rest.
    expect(inode(paths.callCount)).not.toBe(before.calls);
    expect(inode(paths.tokenCount)).toBe(before.tokens);
    expect(inode(paths.lastReset)).toBe(before.lastReset);
    rmSync(paths.callCount);
    expect(rate.value.calls).toBe(5);
  });
});
