// The process layer with real processes: a timeout or an abort ends the whole group (a grandchild
// that ignores SIGTERM too), what a process leaves in its group dies with it, a missing
// executable is a value, large output and stdin pass through whole, a daemon holding the pipes
// does not hang the wait, and a background process does not keep node alive.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { isProcessRunning } from '../../helpers/process-state.js';

const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');
let dir: string;
const leftovers: number[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-process-'));
});
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

// The runner kills the group before `done` settles; allow the kernel a moment to deliver SIGKILL.
async function waitUntilDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && isProcessRunning(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !isProcessRunning(pid);
}

/**
 * A parent that ignores SIGTERM and starts a grandchild in its group that ignores it too; the
 * grandchild's pid goes to a file, and "ready" is printed once both handlers are in place.
 */
function stubbornTree(): { script: string; pidFile: string } {
  const script = join(dir, 'tree.mjs');
  const pidFile = join(dir, 'grandchild.pid');
  writeFileSync(
    script,
    [
      "import { spawn } from 'node:child_process';",
      "import { writeFileSync } from 'node:fs';",
      "process.on('SIGTERM', () => {});",
      "const child = spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)\"], { stdio: ['ignore', 'inherit', 'ignore'] });",
      'writeFileSync(process.argv[2], String(child.pid));',
      'setInterval(() => {}, 1000);',
    ].join('\n'),
  );
  return { script, pidFile };
}

describe('nodeProcessRunner.start', () => {
  it('ends the whole group at the time limit, SIGKILL for what ignores SIGTERM', async () => {
    const { script, pidFile } = stubbornTree();
    // The runner's clock is faked until the tree is in place: the limit runs out then, however
    // long a loaded machine took to start two node processes.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let out = '';
    let handle: ReturnType<typeof nodeProcessRunner.start>;
    try {
      const ready = new Promise<void>((resolve) => {
        handle = nodeProcessRunner.start(process.execPath, [script, pidFile], {
          timeoutMs: 3000,
          graceMs: 200,
          onStdout: (chunk) => {
            out += chunk.toString();
            if (out.includes('ready')) resolve();
          },
        });
      });
      await ready;
      vi.advanceTimersByTime(2999);
      expect(isProcessRunning(handle!.pid!)).toBe(true);
      // The limit: SIGTERM to the group, ignored; the grace period: SIGKILL.
      vi.advanceTimersByTime(1 + 200);
    } finally {
      vi.useRealTimers();
    }
    const exit = await handle!.done;
    expect(exit).toMatchObject({ timedOut: true, aborted: false, code: null, signal: 'SIGKILL' });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    leftovers.push(grandchild);
    expect(await waitUntilDead(grandchild)).toBe(true);
  });

  it('ends the whole group when the signal aborts', async () => {
    const { script, pidFile } = stubbornTree();
    const abort = new AbortController();
    const handle = nodeProcessRunner.start(process.execPath, [script, pidFile], {
      signal: abort.signal,
      graceMs: 200,
      // Abort once the tree says it is in place: an event, not a timer a loaded machine can beat.
      onStdout: (chunk) => {
        if (chunk.toString().includes('ready')) abort.abort();
      },
    });
    const exit = await handle.done;
    expect(exit).toMatchObject({ timedOut: false, aborted: true, signal: 'SIGKILL' });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    leftovers.push(grandchild);
    expect(await waitUntilDead(grandchild)).toBe(true);
  });

  it('kills what a process left running in its group once it exits', async () => {
    const pidFile = join(dir, 'left.pid');
    const script =
      "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });" +
      `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); c.unref();`;
    const exit = await nodeProcessRunner.start(process.execPath, ['-e', script], { group: true, input: '' }).done;
    expect(exit).toMatchObject({ code: 0, timedOut: false, pipesHeldOpen: false });
    const left = Number(readFileSync(pidFile, 'utf8'));
    leftovers.push(left);
    expect(await waitUntilDead(left)).toBe(true);
  });

  it('signals the whole group on kill()', async () => {
    const { script, pidFile } = stubbornTree();
    const handle: ReturnType<typeof nodeProcessRunner.start> = nodeProcessRunner.start(process.execPath, [script, pidFile], {
      group: true,
      onStdout: (chunk) => {
        if (chunk.toString().includes('ready')) handle.kill('SIGKILL');
      },
    });
    expect(handle.pid).toBeGreaterThan(0);
    const exit = await handle.done;
    expect(exit).toMatchObject({ signal: 'SIGKILL', timedOut: false, aborted: false });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    leftovers.push(grandchild);
    expect(await waitUntilDead(grandchild)).toBe(true);
  });

  it('reports a missing executable as a spawn error, not a throw', async () => {
    const handle = nodeProcessRunner.start(join(dir, 'no-such-program'), ['x'], { timeoutMs: 5000 });
    expect(handle.pid).toBeUndefined();
    const exit = await handle.done;
    expect(exit.spawnError?.code).toBe('ENOENT');
    expect(exit).toMatchObject({ code: null, signal: null, timedOut: false });
  });

  it('writes stdin through the handle and closes it', async () => {
    let out = '';
    const handle = nodeProcessRunner.start(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], {
      onStdout: (chunk) => (out += chunk.toString()),
    });
    handle.write('one ');
    handle.end('two');
    expect(await handle.done).toMatchObject({ code: 0 });
    expect(out).toBe('one two');
  });

  it('ends the wait when a daemon that left the group holds the pipes open', async () => {
    const pidFile = join(dir, 'daemon.pid');
    const script =
      "const d = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });" +
      `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(d.pid)); d.unref(); process.exitCode = 5;`;
    const exit = await nodeProcessRunner.start(process.execPath, ['-e', script], { group: true, drainMs: 100, input: '' }).done;
    leftovers.push(Number(readFileSync(pidFile, 'utf8')));
    expect(exit).toMatchObject({ code: 5, pipesHeldOpen: true });
  });
});

describe('nodeProcessRunner.run', () => {
  it('collects large stdout and stderr whole and passes the input', async () => {
    const size = 5 * 1024 * 1024;
    const script = `let i = ''; process.stdin.on('data', (c) => (i += c)).on('end', () => { process.stderr.write(i); process.stdout.write('x'.repeat(${size})); });`;
    const result = await nodeProcessRunner.run(process.execPath, ['-e', script], { input: 'the input' });
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBe(size);
    expect(result.stderr).toBe('the input');
  });

  it('stops a command at its time limit', async () => {
    const result = await nodeProcessRunner.run(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { timeoutMs: 200, graceMs: 200 });
    expect(result).toMatchObject({ timedOut: true, code: null, signal: 'SIGTERM' });
  });
});

describe('a background process', () => {
  it('does not keep node alive', async () => {
    const runner = pathToFileURL(join(REPO_ROOT, 'dist', 'platform', 'process.js')).href;
    const driver =
      `const { nodeProcessRunner } = await import(${JSON.stringify(runner)});\n` +
      "const h = nodeProcessRunner.start('sleep', ['30'], { background: true, timeoutMs: 60000 });\n" +
      'console.log(h.pid);\n';
    const child = spawn(process.execPath, ['--input-type=module', '-e', driver], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const sleeper = Number(out.trim());
    leftovers.push(sleeper);
    expect(code).toBe(0);
    expect(isProcessRunning(sleeper)).toBe(true);
  }, 20_000);
});
