// A full disk or a read-only .ralph/: ralph stops with a clear `Error:` line (no stack trace),
// releases its lock, and leaves nothing half-written — every state file parses, no temp file is
// left, a read-only .ralph/ is not changed at all. Where the machine allows it, .ralph/ is put on
// a tiny tmpfs (filled to leave a chosen number of bytes) or bind-mounted read-only inside a
// private mount namespace (`unshare`); without that, a read-only .ralph/ is made with chmod when
// not running as root (root ignores modes).

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath } from '../helpers/run-cli.js';
import type { TmpProject } from '../helpers/tmp-project.js';
import { checkStateFiles, createFastAgent, faultProject, listTempFiles, type FastAgent } from './fast-agent.js';

function canUseMountNamespace(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-ns-probe-'));
  try {
    const probe = spawnSync('unshare', ['-rm', '--', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs "$1"', 'sh', dir], { stdio: 'ignore', timeout: 10_000 });
    return probe.status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const NAMESPACES = canUseMountNamespace();
const ROOT = process.getuid?.() === 0;

// Runs inside the private mount namespace. Arguments, never interpolated: .ralph dir, staged
// copy of it, bytes to leave free, where to copy the result, mode; then the command to run.
const FULL_DISK_SCRIPT = `set -e
dir=$1; stage=$2; free=$3; inspect=$4; shift 4
mount -t tmpfs -o size=2m tmpfs "$dir"
cp -a "$stage/." "$dir/"
cat /dev/zero > "$dir/.filler" 2>/dev/null || true
truncate -s "-$free" "$dir/.filler"
set +e
"$@"
rc=$?
rm -f "$dir/.filler"
cp -a "$dir/." "$inspect/"
exit $rc
`;
const READ_ONLY_SCRIPT = `set -e
dir=$1; shift
mount --bind "$dir" "$dir"
mount -o remount,bind,ro "$dir"
set +e
"$@"
`;

interface Outcome {
  code: number | null;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const RALPH = () => [process.execPath, binPath('ralph'), '--max-loops', '2'];
const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

/** The failure is reported as one clear `Error:` line naming the cause, with no stack trace. */
function expectClearError(outcome: Outcome, cause: RegExp): void {
  expect(outcome.code, outcome.stderr).toBe(1);
  expect(outcome.stderr).toMatch(new RegExp(`^Error: .*${cause.source}`, 'im'));
  expect(outcome.stderr).not.toMatch(STACK_LINE);
  expect(outcome.stderr).not.toMatch(/^Node\.js v\d+/m);
}

function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[path.slice(dir.length)] = readFileSync(path, 'base64');
    }
  };
  walk(dir);
  return out;
}

let agent: FastAgent;
const cleanups: Array<() => void> = [];
beforeAll(() => {
  agent = createFastAgent();
});
afterAll(() => {
  for (const c of cleanups) c();
  agent?.cleanup();
});

function project(): TmpProject {
  const p = faultProject();
  mkdirSync(p.path('.ralph/logs'), { recursive: true });
  cleanups.push(() => p.cleanup());
  return p;
}

describe.runIf(NAMESPACES)('a disk that fills up', () => {
  let footprint = 0;

  async function runWithFreeBytes(free: number) {
    const p = project();
    const work = mkdtempSync(join(tmpdir(), 'ralph-full-'));
    cleanups.push(() => rmSync(work, { recursive: true, force: true }));
    const stage = join(work, 'stage');
    const inspect = join(work, 'inspect');
    cpSync(p.path('.ralph'), stage, { recursive: true });
    mkdirSync(join(inspect, '.ralph'), { recursive: true });
    const outcome = await run('unshare', ['-rm', '--', 'sh', '-c', FULL_DISK_SCRIPT, 'sh', p.path('.ralph'), stage, String(free), join(inspect, '.ralph'), ...RALPH()], p.dir, agent.env);
    await agent.killLeftovers();
    return { outcome, inspect };
  }

  it('runs to the end when there is room (and measures how much room a run takes)', async () => {
    const { outcome, inspect } = await runWithFreeBytes(1024 * 1024);
    expect(outcome.code, outcome.stderr).toBe(3);
    expect(checkStateFiles(inspect)).toEqual([]);
    const pages = (dir: string): number =>
      readdirSync(dir).reduce((sum, name) => {
        const st = statSync(join(dir, name));
        return sum + (st.isDirectory() ? 4096 + pages(join(dir, name)) : Math.ceil(st.size / 4096) * 4096);
      }, 0);
    footprint = pages(join(inspect, '.ralph'));
    expect(footprint).toBeGreaterThan(8192);
  });

  it('stops with a clear error, its lock released and every state file whole, wherever the space runs out', async () => {
    // From no room at all to nearly enough: the failure lands at start-up, in the first loop's
    // state writes, while the agent streams, and after it.
    const steps = 8;
    const frees = Array.from({ length: steps }, (_, i) => Math.floor((footprint * i) / steps / 4096) * 4096);
    const failures: string[] = [];
    let failed = 0;
    for (const free of frees) {
      const { outcome, inspect } = await runWithFreeBytes(free);
      if (outcome.code === 3) continue;
      failed++;
      try {
        expectClearError(outcome, /no space left on device/);
        expect(checkStateFiles(inspect)).toEqual([]);
        expect(listTempFiles(inspect)).toEqual([]);
        expect(readdirSync(join(inspect, '.ralph'))).not.toContain('.ralph.lock');
      } catch (error) {
        failures.push(`with ${free} bytes free: ${(error as Error).message}\n${outcome.stderr.slice(-800)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(failed).toBeGreaterThanOrEqual(steps / 2);
  }, 120_000);
});

describe('a read-only .ralph/', () => {
  // Root without user namespaces writes anywhere: there is no read-only .ralph/ to make there.
  const method = NAMESPACES ? 'read-only bind mount' : ROOT ? undefined : 'chmod';

  it.runIf(method !== undefined)('refuses to start with a clear error and changes nothing', async () => {
    const p = project();
    const before = snapshotTree(p.path('.ralph'));
    let outcome: Outcome;
    if (method === 'chmod') {
      chmodSync(p.path('.ralph'), 0o555);
      chmodSync(p.path('.ralph/logs'), 0o555);
      try {
        outcome = await run(RALPH()[0]!, RALPH().slice(1), p.dir, agent.env);
      } finally {
        chmodSync(p.path('.ralph/logs'), 0o755);
        chmodSync(p.path('.ralph'), 0o755);
      }
    } else {
      outcome = await run('unshare', ['-rm', '--', 'sh', '-c', READ_ONLY_SCRIPT, 'sh', p.path('.ralph'), ...RALPH()], p.dir, agent.env);
    }
    await agent.killLeftovers();
    expectClearError(outcome, method === 'chmod' ? /(permission denied|not writable|EACCES)/ : /(read-only file system|EROFS)/);
    expect(snapshotTree(p.path('.ralph'))).toEqual(before);
  });
});
