import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { isRalphError } from '../../../lib/errors.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { acquireProjectLock } from '../../../lib/state/lock.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { transpileForChild } from './child-build.js';
import { useTempDir } from './test-context.js';

const tempDir = useTempDir();
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function setup() {
  const paths = ralphPaths(tempDir());
  mkdirSync(paths.ralphDir);
  return { paths, logger: createMemoryLogger() };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

function sleepingChild(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

function writeLock(path: string, pid: number, host = hostname()) {
  writeFileSync(path, JSON.stringify({ pid, startedAt: '2026-11-30T04:48:19.000Z', host }));
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('acquireProjectLock', () => {
  it('writes {pid, startTime, startedAt, host} and release removes it', () => {
    const { paths, logger } = setup();
    const lock = acquireProjectLock(paths, { pid: process.pid, logger });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8'))).toEqual({
      pid: process.pid,
      startTime: expect.stringMatching(/^\d+$/),
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      host: hostname(),
    });
    lock.release();
    expect(existsSync(paths.lock)).toBe(false);
    lock.release(); // twice is fine
    expect(logger.entries).toEqual([]);
  });

  it('refuses a second acquire while the holder is alive (lock_held, exit 1, with a hint)', () => {
    const { paths, logger } = setup();
    const first = acquireProjectLock(paths, { pid: process.pid, logger });
    const error = catchError(() => acquireProjectLock(paths, { pid: process.pid + 1, logger }));
    expect(isRalphError(error) && error.code).toBe('lock_held');
    expect(error).toMatchObject({
      exitCode: 1,
      message: `Another ralph loop is already running in this project (pid ${process.pid})`,
      hint: 'stop it first, or remove .ralph/.ralph.lock if you are sure it is gone',
    });
    first.release();
    expect(existsSync(paths.lock)).toBe(false);
  });

  it('refuses a lock held by another live process', async () => {
    const { paths, logger } = setup();
    const child = sleepingChild();
    await once(child, 'spawn');
    writeLock(paths.lock, child.pid!);
    const error = catchError(() => acquireProjectLock(paths, { pid: process.pid, logger, isRalph: () => true }));
    expect(error).toMatchObject({ code: 'lock_held', message: expect.stringContaining(`pid ${child.pid}`) });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(child.pid);
  });

  it('takes over a lock whose process has exited, with a warning', async () => {
    const { paths, logger } = setup();
    const pid = await deadPid();
    writeLock(paths.lock, pid);
    const lock = acquireProjectLock(paths, { pid: process.pid, logger });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(process.pid);
    expect(logger.messages('WARN')).toEqual([expect.stringContaining(`stale lock from pid ${pid}`)]);
    lock.release();
    expect(existsSync(paths.lock)).toBe(false);
  });

  it('takes over a stale lock whose breaker was killed mid-takeover (its guard names a dead pid)', async () => {
    const { paths, logger } = setup();
    const pid = await deadPid();
    writeLock(paths.lock, pid);
    writeFileSync(`${paths.lock}.break`, String(pid));
    acquireProjectLock(paths, { pid: process.pid, logger });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(process.pid);
    expect(existsSync(`${paths.lock}.break`)).toBe(false);
  });

  it('removes the guard of a breaker killed after it removed the stale lock, when it takes the lock', async () => {
    const { paths, logger } = setup();
    writeFileSync(`${paths.lock}.break`, String(await deadPid()));
    const lock = acquireProjectLock(paths, { pid: process.pid, logger });
    expect(readdirSync(paths.ralphDir)).toEqual(['.ralph.lock']);
    lock.release();
  });

  it('takes over past a guard left long ago whose pid now belongs to a live process', async () => {
    const { paths, logger } = setup();
    const pid = await deadPid();
    writeLock(paths.lock, pid);
    const guard = `${paths.lock}.break`;
    writeFileSync(guard, String(sleepingChild().pid));
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(guard, longAgo, longAgo);
    acquireProjectLock(paths, { pid: process.pid, logger });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(process.pid);
  });

  it('waits out an empty guard a breaker left when killed between creating and writing it, then takes over', async () => {
    const { paths, logger } = setup();
    const pid = await deadPid();
    writeLock(paths.lock, pid);
    writeFileSync(`${paths.lock}.break`, '');
    acquireProjectLock(paths, { pid: process.pid, logger });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(process.pid);
    expect(logger.messages('WARN')).toEqual([expect.stringContaining(`stale lock from pid ${pid}`)]);
  });

  it("sweeps the temp files of the lock and its guard that a ralph killed mid-create left, never a live writer's", async () => {
    const { paths, logger } = setup();
    const dead = await deadPid();
    const live = sleepingChild();
    await once(live, 'spawn');
    const leave = (name: string) => {
      writeFileSync(join(paths.ralphDir, name), String(dead));
      return name;
    };
    leave(`..ralph.lock.tmp-${dead}-0badf00d`);
    leave(`..ralph.lock.break.tmp-${dead}-0badf00d`);
    const kept = [leave(`..ralph.lock.tmp-${live.pid}-cafebabe`), leave(`..ralph.lock.break.tmp-${live.pid}-cafebabe`)];
    const lock = acquireProjectLock(paths, { pid: process.pid, logger });
    expect(readdirSync(paths.ralphDir).sort()).toEqual(['.ralph.lock', ...kept].sort());
    lock.release();
  });

  it('takes over an unreadable lock file, with a warning', () => {
    const { paths, logger } = setup();
    writeFileSync(paths.lock, 'garbage');
    acquireProjectLock(paths, { pid: process.pid, logger });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(process.pid);
    expect(logger.messages('WARN')).toHaveLength(1);
  });

  it('never takes over a lock from another host (its pid cannot be checked here)', async () => {
    const { paths, logger } = setup();
    writeLock(paths.lock, await deadPid(), 'some-other-container');
    const error = catchError(() => acquireProjectLock(paths, { pid: process.pid, logger }));
    expect(error).toMatchObject({ code: 'lock_held', message: expect.stringContaining('on host some-other-container') });
  });

  it('uses the injected liveness check', () => {
    const { paths, logger } = setup();
    writeLock(paths.lock, 4242);
    expect(() => acquireProjectLock(paths, { pid: 1, logger, isAlive: () => true })).toThrow(/pid 4242/);
    acquireProjectLock(paths, { pid: 1, logger, isAlive: () => false });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(1);
  });

  it('records the running agent group in the lock and clears it when the agent is gone', () => {
    const { paths, logger } = setup();
    const lock = acquireProjectLock(paths, { pid: process.pid, logger });
    const base = JSON.parse(readFileSync(paths.lock, 'utf8'));
    lock.recordAgent({ pgid: 4242, startTime: '123456' });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8'))).toEqual({ ...base, agentPgid: 4242, agentStartTime: '123456' });
    lock.clearAgent();
    expect(JSON.parse(readFileSync(paths.lock, 'utf8'))).toEqual(base);
    lock.release();
    expect(existsSync(paths.lock)).toBe(false);
  });

  it('hands back the stale lock it took over, with the agent group its dead ralph recorded', async () => {
    const { paths, logger } = setup();
    const pid = await deadPid();
    writeFileSync(paths.lock, JSON.stringify({ pid, startedAt: '2026-11-30T04:48:19.000Z', host: hostname(), agentPgid: 4242, agentStartTime: '99' }));
    const lock = acquireProjectLock(paths, { pid: process.pid, logger });
    expect(lock.previous).toEqual({ pid, startedAt: '2026-11-30T04:48:19.000Z', host: hostname(), agentPgid: 4242, agentStartTime: '99' });
    lock.release();
    expect(acquireProjectLock(paths, { pid: process.pid, logger }).previous).toBeUndefined();
  });

  it('never writes an agent group into a lock another process has since taken', () => {
    const { paths, logger } = setup();
    const lock = acquireProjectLock(paths, { pid: process.pid, logger });
    writeLock(paths.lock, 4242);
    lock.recordAgent({ pgid: 777 });
    expect(JSON.parse(readFileSync(paths.lock, 'utf8'))).toEqual({ pid: 4242, startedAt: '2026-11-30T04:48:19.000Z', host: hostname() });
  });

  it('release leaves a lock that another process has since taken', () => {
    const { paths, logger } = setup();
    const lock = acquireProjectLock(paths, { pid: process.pid, logger });
    writeLock(paths.lock, 4242);
    lock.release();
    expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(4242);
  });

  it('lets exactly one of several processes racing for a stale lock win', async () => {
    const dir = tempDir();
    transpileForChild(
      [
        'state/lock.ts',
        'state/atomic-write.ts',
        'state/process-alive.ts',
        'state/no-follow.ts',
        'state/control-file.ts',
        'errors.ts',
        'platform/clock.ts',
        'platform/boot-reading.ts',
        'platform/read-text.ts',
      ],
      dir,
    );
    const script = join(dir, 'race.mjs');
    // Each child waits for "go", tries once, reports, then holds on until stdin closes.
    writeFileSync(
      script,
      `import { acquireProjectLock } from './state/lock.js';
       import { createInterface } from 'node:readline';
       const logger = { warn() {}, info() {}, error() {}, success() {}, debug() {}, log() {} };
       const lines = createInterface({ input: process.stdin });
       console.log('ready');
       for await (const line of lines) {
         if (line !== 'go') continue;
         try { acquireProjectLock({ lock: process.argv[2] }, { pid: process.pid, logger }); console.log('won'); }
         catch (e) { console.log(e.code); }
       }`,
    );
    const { paths } = setup();
    const stalePid = await deadPid();
    const racers = Array.from({ length: 6 }, () => {
      const child = spawn(process.execPath, [script, paths.lock], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.push(child);
      return { child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator]() };
    });
    for (const racer of racers) expect((await racer.lines.next()).value).toBe('ready');
    for (let round = 0; round < 10; round++) {
      writeLock(paths.lock, stalePid);
      for (const racer of racers) racer.child.stdin!.write('go\n');
      const outcomes = await Promise.all(racers.map(async (racer) => (await racer.lines.next()).value as string));
      expect(
        outcomes.filter((o) => o === 'won'),
        `round ${round}`,
      ).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'lock_held')).toHaveLength(5);
      const winner = racers[outcomes.indexOf('won')]!.child.pid;
      expect(JSON.parse(readFileSync(paths.lock, 'utf8')).pid).toBe(winner);
    }
    for (const racer of racers) racer.child.stdin!.end();
    await Promise.all(racers.map((racer) => once(racer.child, 'exit')));
  });
});
