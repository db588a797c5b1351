// A full disk or a read-only .ralph/: ralph stops with a clear `Error:` line (no stack trace),
// releases its lock, and leaves nothing half-written — every state file parses, no temp file is
// left, a read-only .ralph/ is not changed at all. .ralph/ is put on a tiny tmpfs (filled to leave
// a chosen number of bytes) or bind-mounted read-only inside a private mount namespace
// (isolation.ts provides one); without a namespace, a read-only .ralph/ is made with chmod, and
// root runs ralph as an unprivileged user for that (root ignores modes). Each test stands alone.

import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath } from '../../helpers/run-cli.js';
import type { TmpProject } from '../../helpers/tmp-project.js';
import { checkStateFiles, createFastAgent, faultProject, listTempFiles, type FastAgent } from '../../fault/fast-agent.js';
import { chownTree, IS_ROOT, mountNamespacePrefix, probeMountNamespace, unprivilegedUser } from './isolation.js';

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

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, user?: { uid: number; gid: number }): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], ...user });
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

describe('a disk that fills up', () => {
  async function runWithFreeBytes(free: number) {
    const p = project();
    const work = mkdtempSync(join(tmpdir(), 'ralph-full-'));
    cleanups.push(() => rmSync(work, { recursive: true, force: true }));
    const stage = join(work, 'stage');
    const inspect = join(work, 'inspect');
    cpSync(p.path('.ralph'), stage, { recursive: true });
    mkdirSync(join(inspect, '.ralph'), { recursive: true });
    const [unshare, ...prefix] = mountNamespacePrefix();
    const outcome = await run(
      unshare!,
      [...prefix, 'sh', '-c', FULL_DISK_SCRIPT, 'sh', p.path('.ralph'), stage, String(free), join(inspect, '.ralph'), ...RALPH()],
      p.dir,
      agent.env,
    );
    await agent.killLeftovers();
    return { outcome, inspect };
  }

  /** A run with room to spare: its outcome and how much room (in 4 KiB pages) it took. */
  async function runWithRoom() {
    const { outcome, inspect } = await runWithFreeBytes(1024 * 1024);
    const pages = (dir: string): number =>
      readdirSync(dir).reduce((sum, name) => {
        const st = statSync(join(dir, name));
        return sum + (st.isDirectory() ? 4096 + pages(join(dir, name)) : Math.ceil(st.size / 4096) * 4096);
      }, 0);
    return { outcome, inspect, footprint: pages(join(inspect, '.ralph')) };
  }

  it('runs to the end when there is room (and measures how much room a run takes)', async () => {
    const { outcome, inspect, footprint } = await runWithRoom();
    expect(outcome.code, outcome.stderr).toBe(3);
    expect(checkStateFiles(inspect)).toEqual([]);
    expect(footprint).toBeGreaterThan(8192);
  });

  it('stops with a clear error, its lock released and every state file whole, wherever the space runs out', async () => {
    const room = await runWithRoom();
    expect(room.outcome.code, room.outcome.stderr).toBe(3);
    // From no room at all to nearly enough: the failure lands at start-up, in the first loop's
    // state writes, while the agent streams, and after it.
    const steps = 8;
    const frees = Array.from({ length: steps }, (_, i) => Math.floor((room.footprint * i) / steps / 4096) * 4096);
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
  }, 240_000);
});

describe('a read-only .ralph/', () => {
  it('refuses to start with a clear error and changes nothing', async () => {
    const p = project();
    const before = snapshotTree(p.path('.ralph'));
    let outcome: Outcome;
    const namespace = probeMountNamespace();
    if ('prefix' in namespace) {
      const [unshare, ...prefix] = namespace.prefix;
      outcome = await run(unshare!, [...prefix, 'sh', '-c', READ_ONLY_SCRIPT, 'sh', p.path('.ralph'), ...RALPH()], p.dir, agent.env);
      await agent.killLeftovers();
      expectClearError(outcome, /(read-only file system|EROFS)/);
    } else {
      // No namespace: file modes make .ralph/ read-only, for a user they apply to.
      const user = IS_ROOT ? unprivilegedUser() : undefined;
      if (user) for (const dir of [p.dir, agent.root]) chownTree(dir, user.uid, user.gid);
      chmodSync(p.path('.ralph'), 0o555);
      chmodSync(p.path('.ralph/logs'), 0o555);
      try {
        outcome = await run(RALPH()[0]!, RALPH().slice(1), p.dir, agent.env, user);
      } finally {
        chmodSync(p.path('.ralph/logs'), 0o755);
        chmodSync(p.path('.ralph'), 0o755);
      }
      await agent.killLeftovers();
      expectClearError(outcome, /(permission denied|not writable|EACCES)/);
    }
    expect(snapshotTree(p.path('.ralph'))).toEqual(before);
  });
});
