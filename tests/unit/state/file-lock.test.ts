// The short lock around a read-modify-write of queue.json (`.ralph/queue.json.lock`): what an
// agent may plant under its name or in place of its folder never hangs ralph nor gets a file
// made or removed outside the project.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRefusedWrite } from '../../../lib/state/no-follow.js';
import { withFileLock } from '../../../lib/state/file-lock.js';
import { transpileForChild } from './child-build.js';
import { useTempDir } from './test-context.js';

const tempDir = useTempDir();

describe('withFileLock', () => {
  it('takes a FIFO planted as the lock for a busy lock, without waiting on it', () => {
    const dir = join(tempDir(), '.ralph');
    mkdirSync(dir);
    const lock = join(dir, 'queue.json.lock');
    execFileSync('mkfifo', [lock]);
    // In a child with a time limit: a read of the FIFO would block its thread for good.
    const build = tempDir();
    transpileForChild(
      ['state/file-lock.ts', 'state/process-alive.ts', 'state/no-follow.ts', 'state/control-file.ts', 'platform/read-text.ts', 'errors.ts'],
      build,
    );
    const script = join(build, 'lock.mjs');
    writeFileSync(
      script,
      `import { withFileLock } from './state/file-lock.js';
       try { withFileLock(process.argv[2], () => {}, { timeoutMs: 50 }); process.stdout.write('taken'); }
       catch (error) { process.stdout.write(error.code); }`,
    );
    const child = spawnSync(process.execPath, [script, lock], { encoding: 'utf8', timeout: 20_000 });
    expect(child.signal).toBeNull();
    expect(child.stdout).toBe('lock_busy');
  });

  it('neither makes nor removes a lock through a .ralph the agent made a link', () => {
    const project = tempDir();
    const outside = tempDir();
    symlinkSync(outside, join(project, '.ralph'));
    let ran = false;
    let thrown: unknown;
    try {
      withFileLock(join(project, '.ralph', 'queue.json.lock'), () => (ran = true));
    } catch (error) {
      thrown = error;
    }
    expect(isRefusedWrite(thrown)).toBe(true);
    expect(ran).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
  });
});
