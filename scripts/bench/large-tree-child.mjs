// Child process of the large-tree rows (scripts/bench/content-snapshot.mjs): the real loop
// (dist/loop/run-project.js, runProject, Deps as the CLI builds them) for LOOPS loops on a git
// project of FILES files, with an instant fake `claude` that changes one tracked file and adds
// one untracked file each call, as a loop leaves the tree. Side by side in the same run, at
// each agent spawn (inside the agent's share of the loop, so it is not counted as ralph's) it
// times `git status --porcelain` on the tree as the loop found it. Per loop it reports the wall
// and CPU (ralph's own and its finished child processes', git included) from the agent
// process's exit to the next agent's spawn — everything the loop does beyond the agent, the
// sandbox's clean-up after the call included (and, apart, from the end of the call: its
// 'agent:finished' event, after that clean-up) — and the same for `git status`. Prints one JSON
// object. Arguments: LOOPS (8), FILES (50,000), `backup` (runs with --backup), `keep` (the
// project is left for the caller to delete: see makeProject), `trace` (each
// process ralph started, with its wall time, on stderr). BENCH_NO_HEAP_TUNING=1: without
// ralph's heap settings; BENCH_PROFILE_FROM=<file>: writes the monotonic time (µs) of loop 3's
// spawn there and of the run's end to <file>.to, to cut a CPU profile. Run as root, it also
// times at each spawn the setuid clean-up's walk alone (one `find`), as it times `git status`.

import childProcess, { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentRunEnv, instantAgent, RALPH_STATE_IGNORED, writeGitProject } from './bench-project.mjs';

const dist = (path) => new URL(`../../dist/${path}`, import.meta.url).href;
const LOOPS = Number(process.argv[2] ?? 8);
const FILES = Number(process.argv[3] ?? 50_000);
const BACKUP = process.argv.includes('backup');
const TRACE = process.argv.includes('trace');
const KEEP = process.argv.includes('keep');
const PER_DIR = 500;

// No background gc racing the clean-up.
const NO_GC = { GIT_CONFIG_PARAMETERS: "'gc.auto=0'" };

const STATUS_TEXT = [
  'Worked on the first item; more to do.',
  '',
  '---RALPH_STATUS---',
  'STATUS: IN_PROGRESS',
  'TASKS_COMPLETED_THIS_LOOP: 0',
  'FILES_MODIFIED: 2',
  'TESTS_STATUS: NOT_RUN',
  'WORK_TYPE: IMPLEMENTATION',
  'EXIT_SIGNAL: false',
  'RECOMMENDATION: keep going',
  '---END_RALPH_STATUS---',
].join('\n');

// One tracked file changed and one untracked file added per call; `n` counts the calls.
const AGENT = instantAgent('echo "one more step" >> src0/f0.ts', 'n=$(wc -l < src0/f0.ts)', 'echo "export const added = $n;" > "src1/added$n.ts"');

function streamJson() {
  const lines = [
    { type: 'system', subtype: 'init', session_id: '7f6c2a4e-0d1b-4c53-9a0e-5b8f0d3c2e11', model: 'claude-sonnet-4-5', tools: [] },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: STATUS_TEXT }] }, session_id: '7f6c2a4e-0d1b-4c53-9a0e-5b8f0d3c2e11' },
    {
      type: 'result',
      subtype: 'success',
      is_error: false,
      duration_ms: 10,
      num_turns: 1,
      result: STATUS_TEXT,
      session_id: '7f6c2a4e-0d1b-4c53-9a0e-5b8f0d3c2e11',
      total_cost_usd: 0.001,
      usage: { input_tokens: 10, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    },
  ];
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

function makeProject(root) {
  const dir = join(root, 'project');
  for (let i = 0; i < FILES; i++) {
    const sub = join(dir, `src${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  const files = {
    '.ralph/PROMPT.md': '# Task\nWork through fix_plan.md.\n',
    '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n- [x] set up\n',
    '.ralph/AGENT.md': '# Agent\n',
    '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\nFAILURE_RETRY_SECONDS=0\nMAX_CALLS_PER_HOUR=100000\nCB_NO_PLAN_PROGRESS_THRESHOLD=0\n',
    '.gitignore': `${RALPH_STATE_IGNORED}node_modules/\n`,
  };
  // Packed, as a real repository's objects are (git packs them itself past ~6,700 loose ones):
  // 50,000 loose objects would double every walk of the tree that enters `.git`. Written to a
  // pack as they are added (every file counts as big), not packed by a gc, which would delete
  // 50,000 loose files: on an ext4 without a journal, a file made in the minutes after such a
  // deletion, where the freed inodes lie, passes over each of them (a state write of the loop
  // then cost up to seven times the CPU).
  writeGitProject(dir, files, { GIT_CONFIG_PARAMETERS: "'gc.auto=0' 'core.bigfilethreshold=1'" });
  return dir;
}

function makeEnv(root) {
  const stream = join(root, 'stream.jsonl');
  writeFileSync(stream, streamJson());
  return agentRunEnv(root, AGENT, { drop: /^GIT_/, extra: { ...NO_GC, BENCH_AGENT_STREAM: stream } });
}

// CPU of this process and of its waited-for children (git), in ms: /proc/self/stat's utime,
// stime, cutime and cstime are in clock ticks; this process's own is read finer.
const TICK_MS = 10;
function cpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) * TICK_MS;
  const own = process.cpuUsage();
  return { own: (own.user + own.system) / 1000, ownSystem: own.system / 1000, children };
}

/** Every file under `.git` with its size and mtime: what the loops wrote there shows as a difference. */
function gitFiles(dir) {
  const out = new Map();
  for (const entry of readdirSync(join(dir, '.git'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const st = statSync(path);
    out.set(path.slice(dir.length + 1), `${st.size}:${st.mtimeMs}`);
  }
  return out;
}

// Run as root, ralph clears setuid bits after each call with `find` (lib/sandbox/find-walk.ts):
// the same walk as one process, timed as `git status` is, is the floor of the loop's share.
const AS_ROOT = process.getuid?.() === 0;
function timeWalk(dir) {
  const since = `@${Math.floor(Date.now() / 1000) - 1}`;
  const setId = ['-type', 'f', '(', '-perm', '-4000', '-o', '-perm', '-2000', ')', '-printf', 'S%p\\0'];
  const before = cpuMs().children;
  execFileSync('find', ['.', '-xdev', '(', ...setId, ')', ',', '(', '-newerct', since, '-printf', 'C%p\\0', ')'], {
    cwd: dir,
    stdio: 'ignore',
  });
  return cpuMs().children - before;
}

function trace() {
  const { spawn, spawnSync } = childProcess;
  const started = performance.now();
  const say = (kind, cmd, args, ms) =>
    process.stderr.write(
      `${(performance.now() - started).toFixed(0).padStart(7)} ${kind} ${ms.toFixed(1).padStart(7)} ms ${cmd} ${args.join(' ').slice(0, 160)}\n`,
    );
  childProcess.spawn = (cmd, args, options) => {
    const at = performance.now();
    const child = spawn(cmd, args, options);
    child.on('exit', () => say('async', cmd, args, performance.now() - at));
    return child;
  };
  childProcess.spawnSync = (cmd, args, options) => {
    const at = performance.now();
    const result = spawnSync(cmd, args, options);
    say('sync ', cmd, args, performance.now() - at);
    return result;
  };
  syncBuiltinESMExports();
  return (text) => process.stderr.write(`${(performance.now() - started).toFixed(0).padStart(7)} ----- ${text}\n`);
}

const mark = TRACE ? trace() : () => undefined;
if (!process.env.BENCH_NO_HEAP_TUNING) (await import(dist('platform/heap-tuning.js'))).tuneHeapForLongRun();
const { runProject } = await import(dist('loop/run-project.js'));
const { LoopEvents } = await import(dist('loop/events.js'));
const { createLogger } = await import(dist('platform/logger.js'));
const { nodeProcessRunner } = await import(dist('platform/process.js'));
const { systemClock } = await import(dist('platform/clock.js'));
const { ralphPaths } = await import(dist('state/paths.js'));
const { atomicWriteCount } = await import(dist('state/atomic-write.js'));
const { createRedactor } = await import(dist('text/redaction.js'));

const root = mkdtempSync(join(tmpdir(), 'ralph-bench-large-'));
try {
  const projectDir = makeProject(root);
  const env = makeEnv(root);
  const statusEnv = { ...env, GIT_OPTIONAL_LOCKS: '0' };
  const events = new LoopEvents();
  const loops = [];
  let gitBefore;
  // The loop's share starts when the agent's process has exited (its output drained): what ralph
  // does after it, before the loop's 'agent:finished' event (the sandbox's clean-up), counts too.
  let current = 0;
  const processRunner = {
    start(cmd, args, options) {
      const handle = nodeProcessRunner.start(cmd, args, options);
      const loop = current;
      if (cmd === 'claude' && args.includes('-p'))
        void handle.done.then(() => {
          Object.assign(loops[loop], { exitWall: performance.now(), exitCpu: cpuMs(), exitReplaces: atomicWriteCount() });
          mark(`agent ${loop} exited`);
        });
      return handle;
    },
    run: (cmd, args, options) => nodeProcessRunner.run(cmd, args, options),
  };
  if (TRACE) for (const name of ['agent:judged', 'iteration:ended', 'iteration:started']) events.on(name, ({ loop }) => mark(`${name} ${loop}`));
  events.on('agent:finished', ({ loop }) => {
    Object.assign(loops[loop], { finishedWall: performance.now(), finishedCpu: cpuMs() });
    mark(`agent ${loop} finished`);
  });
  events.on('agent:started', ({ loop }) => {
    current = loop;
    const wall = performance.now();
    const cpu = cpuMs();
    const previous = loops[loop - 1];
    if (previous) {
      previous.wall = wall - previous.exitWall;
      previous.cpu = cpu.own + cpu.children - previous.exitCpu.own - previous.exitCpu.children;
      previous.ownCpu = cpu.own - previous.exitCpu.own;
      previous.ownSystem = cpu.ownSystem - previous.exitCpu.ownSystem;
      previous.replaces = atomicWriteCount() - previous.exitReplaces;
      previous.afterCallWall = wall - previous.finishedWall;
      previous.afterCallCpu = cpu.own + cpu.children - previous.finishedCpu.own - previous.finishedCpu.children;
    }
    if (loop === 2) gitBefore = gitFiles(projectDir);
    if (loop === 3 && process.env.BENCH_PROFILE_FROM) writeFileSync(process.env.BENCH_PROFILE_FROM, String(process.hrtime.bigint() / 1000n));
    // `git status` on the tree as this loop starts, before the agent changes it (no optional
    // locks: it leaves the index as ralph found it).
    const at = performance.now();
    execFileSync('git', ['status', '--porcelain'], { cwd: projectDir, env: statusEnv, stdio: 'ignore', maxBuffer: 1 << 30 });
    const statusWall = performance.now() - at;
    const after = cpuMs();
    loops[loop] = { statusWall, statusCpu: after.children - cpu.children, ...(AS_ROOT ? { walkCpu: timeWalk(projectDir) } : {}) };
    mark(`agent ${loop} spawns (git status ${statusWall.toFixed(1)} ms)`);
  });
  const quiet = { write() {}, isTTY: false, columns: 100 };
  const redact = createRedactor(env);
  const deps = {
    clock: systemClock,
    env,
    cwd: projectDir,
    homeDir: env.HOME,
    processRunner,
    logger: createLogger({ logFile: ralphPaths(projectDir).ralphLog, stderr: quiet, env, redact, clock: systemClock }),
    stdout: quiet,
    stderr: quiet,
    redact,
  };
  const signals = Object.assign(new EventEmitter(), { exit: () => undefined });
  const flags = { MAX_LOOPS: LOOPS, ...(BACKUP ? { ENABLE_BACKUP: true } : {}) };
  const code = await runProject({ projectDir, flags, deps, signals, events });
  if (process.env.BENCH_PROFILE_FROM) writeFileSync(`${process.env.BENCH_PROFILE_FROM}.to`, String(process.hrtime.bigint() / 1000n));
  const measured = loops.filter((l) => l?.wall !== undefined);
  if (measured.length < LOOPS - 1) throw new Error(`the loop stopped early (exit ${code}); see ${projectDir}/.ralph/logs/ralph.log`);
  // Loop 1 takes the first snapshot: it is left out (as the row says: a loop after the first).
  const gitAfter = gitFiles(projectDir);
  const changed = [...gitAfter].filter(([path, stat]) => gitBefore.get(path) !== stat).map(([path]) => path);
  process.stdout.write(
    JSON.stringify({
      loops: measured.length,
      wall: loops.slice(2).map((l) => l?.wall ?? null),
      cpu: loops.slice(2).map((l) => l?.cpu ?? null),
      ownCpu: loops.slice(2).map((l) => l?.ownCpu ?? null),
      ownSystem: loops.slice(2).map((l) => l?.ownSystem ?? null),
      replaces: loops.slice(2).map((l) => l?.replaces ?? null),
      afterCallWall: loops.slice(2).map((l) => l?.afterCallWall ?? null),
      afterCallCpu: loops.slice(2).map((l) => l?.afterCallCpu ?? null),
      statusWall: loops.slice(2).map((l) => l?.statusWall ?? null),
      statusCpu: loops.slice(2).map((l) => l?.statusCpu ?? null),
      walkCpu: loops.slice(2).map((l) => l?.walkCpu ?? null),
      gitWritten: changed,
    }),
  );
} finally {
  if (!KEEP) rmSync(root, { recursive: true, force: true, maxRetries: 5 });
}
