// Child process of the orchestration benchmark: runs the real loop (dist/loop/run-project.js,
// runProject, with Deps built as the CLI builds them) for LOOPS loops against a temporary git
// project and an instant fake `claude` — a few lines of POSIX sh (as tests/fault/fast-agent.ts)
// that appends one line to a tracked file (content progress every loop) and prints a recorded
// stream-json run whose RALPH_STATUS says EXIT_SIGNAL: false — so the loop runs to MAX_LOOPS
// doing the whole analysis and the content progress check each time. This process holds only
// ralph and this small harness, so its CPU (process.cpuUsage) and peak RSS are ralph's; the agent
// and git are separate processes. Prints one JSON object: per-loop CPU and wall, the gaps from
// each agent's exit to the next spawn (wall, and this process's CPU within them), RSS samples,
// and the whole process's CPU (start-up included). Arguments: LOOPS (1,000) and PLAN_ITEMS, the
// open items of the plan (1: the plan-growth rows give it 100, 1,000 and 10,000), then a mode:
// `bin` runs the shipped bin/ralph in a process of its own instead (its CPU and RSS then come
// from loop-probe.mjs inside it), `web` runs the shipped `bin/ralph --web` with one page's
// event stream connected from this process (a browser is a process of its own too), `tick` has
// the agent also tick the plan's first open item every call (the plan changes, and its memory is
// written, each loop).

import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentRunEnv, instantAgent, RALPH_STATE_IGNORED, writeGitProject } from './bench-project.mjs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (path) => new URL(`../../dist/${path}`, import.meta.url).href;
const LOOPS = Number(process.argv[2] ?? 1000);
const PLAN_ITEMS = Number(process.argv[3] ?? 1);
// `web`: the shipped `bin/ralph --web`, one page's event stream read from this process.
const WITH_WEB = process.argv[4] === 'web';
// `bin` (and `web`): the shipped bin/ralph in its own process (scripts/bench/loop-probe.mjs times
// it), not the loop imported into this one from dist/.
const SHIPPED = process.argv[4] === 'bin' || WITH_WEB;
// `tick`: the agent ticks the plan's first open item every call, as an honest agent finishing an
// item a loop does, so the plan is parsed again and its memory rewritten each loop.
const TICKS = process.argv[4] === 'tick';
// Node's own flags for the shipped bin/ralph, e.g. `--cpu-prof` to profile it (NODE_OPTIONS takes no such flag).
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

const STATUS_TEXT = [
  'Worked on the first item; more to do.',
  '',
  '---RALPH_STATUS---',
  'STATUS: IN_PROGRESS',
  'TASKS_COMPLETED_THIS_LOOP: 0',
  'FILES_MODIFIED: 1',
  'TESTS_STATUS: NOT_RUN',
  'WORK_TYPE: IMPLEMENTATION',
  'EXIT_SIGNAL: false',
  'RECOMMENDATION: keep going',
  '---END_RALPH_STATUS---',
].join('\n');

const AGENT = instantAgent(
  'echo "one more step" >> src/progress.log',
  `if [ -n "$BENCH_AGENT_TICKS" ]; then sed -i '0,/^- \\[ \\] /s//- [x] /' .ralph/fix_plan.md; fi`,
);

/** The recorded happy run with its final text replaced by the status block (real CLI lines). */
function buildStream() {
  const recorded = readFileSync(join(ROOT, 'tests/fixtures/claude-cli-2.1.332/happy_sj.stdout'), 'utf8');
  return recorded
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const message = JSON.parse(line);
      if (message.type === 'result') message.result = STATUS_TEXT;
      if (message.type === 'assistant') for (const block of message.message?.content ?? []) if (block.type === 'text') block.text = STATUS_TEXT;
      return JSON.stringify(message);
    })
    .join('\n')
    .concat('\n');
}

/** A plan of `items` open items (each its own text) and one done. */
function planText(items) {
  const open = Array.from({ length: items }, (_, i) => (i === 0 ? '- [ ] keep going\n' : `- [ ] item ${i}: make part ${i} of the module work\n`));
  return `# Fix Plan\n${open.join('')}- [x] set up\n`;
}

function makeProject(root) {
  const dir = join(root, 'project');
  const files = {
    '.ralph/PROMPT.md': '# Task\nWork through fix_plan.md.\n',
    '.ralph/fix_plan.md': planText(PLAN_ITEMS),
    '.ralph/AGENT.md': '# Agent\n',
    // The agent changes a file every call and never ticks the plan: the stall guard (8 loops
    // without plan progress) would halt the run long before MAX_LOOPS, so it is set out of reach.
    '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\nFAILURE_RETRY_SECONDS=0\nMAX_CALLS_PER_HOUR=100000\nCB_NO_PLAN_PROGRESS_THRESHOLD=0\n',
    '.gitignore': RALPH_STATE_IGNORED,
    'src/index.js': 'export {};\n',
    'src/progress.log': '',
  };
  writeGitProject(dir, files);
  return dir;
}

function makeEnv(root) {
  const stream = join(root, 'stream.jsonl');
  writeFileSync(stream, buildStream());
  return agentRunEnv(root, AGENT, { extra: { BENCH_AGENT_STREAM: stream, ...(TICKS ? { BENCH_AGENT_TICKS: '1' } : {}) } });
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Runs the real loop in this process, from tsc's per-file output (dist/), as the CLI builds its Deps. */
async function runInProcess(projectDir, env) {
  // As bin/ralph does: the heap settings come before the loop's modules load.
  (await import(dist('platform/heap-tuning.js'))).tuneHeapForLongRun();
  const { runProject } = await import(dist('loop/run-project.js'));
  const { LoopEvents } = await import(dist('loop/events.js'));
  const { createLogger } = await import(dist('platform/logger.js'));
  const { nodeProcessRunner } = await import(dist('platform/process.js'));
  const { systemClock } = await import(dist('platform/clock.js'));
  const { ralphPaths } = await import(dist('state/paths.js'));
  const { createRedactor } = await import(dist('text/redaction.js'));
  const events = new LoopEvents();
  // Per loop: CPU and wall at the agent's spawn; at its exit; RSS at each spawn.
  const times = { startCpu: [], startWall: [], exitCpu: [], exitWall: [], rss: [] };
  events.on('agent:finished', ({ loop }) => {
    times.exitWall[loop] = performance.now();
    times.exitCpu[loop] = cpuMs();
  });
  // As loop-probe.mjs does in bin/ralph: a file marks the spawn of loop BENCH_PROBE_MARK_AT.
  const mark = process.env.BENCH_PROBE_MARK;
  const markAt = Number(process.env.BENCH_PROBE_MARK_AT ?? 0);
  events.on('agent:started', ({ loop }) => {
    times.startWall[loop] = performance.now();
    times.startCpu[loop] = cpuMs();
    times.rss[loop] = process.memoryUsage().rss / 1e6;
    if (mark && loop === markAt) writeFileSync(mark, '');
  });
  const quiet = { write() {}, isTTY: false, columns: 100 };
  const redact = createRedactor(env);
  const deps = {
    clock: systemClock,
    env,
    cwd: projectDir,
    homeDir: env.HOME,
    processRunner: nodeProcessRunner,
    // As the CLI builds it (createDeps): redacted lines to ralph.log; the terminal is not timed.
    logger: createLogger({ logFile: ralphPaths(projectDir).ralphLog, stderr: quiet, env, redact, clock: systemClock }),
    stdout: quiet,
    stderr: quiet,
    redact,
  };
  const signals = Object.assign(new EventEmitter(), { exit: () => undefined });
  const started = performance.now();
  const code = await runProject({ projectDir, flags: { MAX_LOOPS: LOOPS }, deps, signals, events });
  const wallMs = performance.now() - started;
  return {
    ...times,
    code,
    wallMs,
    peakRssMb: (process.resourceUsage().maxRSS * 1024) / 1e6,
    processCpuMs: cpuMs(),
  };
}

/**
 * Runs the shipped `bin/ralph --max-loops LOOPS` (the bundle users run) in the project, its
 * terminal output to /dev/null, with loop-probe.mjs loaded to time it from inside. With the web
 * view (`web`), `--web` too: its address is read from ralph's output (the rest of which is
 * drained), and one event stream, as a page opens it, reads every update until ralph exits.
 */
async function runShipped(projectDir, env, root) {
  const probeOut = join(root, 'probe.json');
  const probe = new URL('./loop-probe.mjs', import.meta.url).href;
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_ARGS, join(ROOT, 'bin/ralph'), '--max-loops', String(LOOPS), ...(WITH_WEB ? ['--web'] : [])], {
    cwd: projectDir,
    env: { ...env, NODE_OPTIONS: `--import=${probe}`, BENCH_PROBE_OUT: probeOut },
    stdio: ['ignore', WITH_WEB ? 'pipe' : 'ignore', 'ignore'],
  });
  const page = WITH_WEB ? openPage(child.stdout) : undefined;
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const wallMs = performance.now() - started;
  if (!existsSync(probeOut)) throw new Error(`bin/ralph exited ${code} before the probe wrote its times`);
  if (page && (await page).events < 2) throw new Error(`the page got ${(await page).events} state events from ralph --web`);
  return { ...JSON.parse(readFileSync(probeOut, 'utf8')), code, wallMs };
}

/** Finds the view's address in ralph's output and opens its event stream; resolves with the events read once it ends. */
function openPage(output) {
  return new Promise((resolve, reject) => {
    let text = '';
    let opened = false;
    output.setEncoding('utf8');
    output.on('data', (chunk) => {
      if (opened) return;
      text += chunk;
      const match = /Web view: (http:\/\/\S+)/.exec(text);
      if (!match) return;
      opened = true;
      const url = new URL(match[1]);
      const page = { events: 0 };
      const stream = request({ host: url.hostname, port: url.port, path: `/events?token=${url.searchParams.get('token')}` }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (data) => (page.events += data.split('event: state').length - 1));
        res.on('close', () => resolve(page));
      });
      stream.on('error', () => resolve(page));
      stream.end();
    });
    output.on('end', () => {
      if (!opened) reject(new Error('ralph --web printed no address'));
    });
  });
}

const root = mkdtempSync(join(tmpdir(), 'ralph-bench-loop-'));
try {
  const projectDir = makeProject(root);
  const env = makeEnv(root);
  const run = SHIPPED ? await runShipped(projectDir, env, root) : await runInProcess(projectDir, env);
  const { startCpu, startWall, exitCpu, exitWall, rss, code, wallMs } = run;
  const loops = startCpu.length - 1;
  if (loops < LOOPS) throw new Error(`the benchmark loop stopped early (exit ${code}, ${loops} of ${LOOPS} loops); see ${projectDir}/.ralph/logs/ralph.log`);
  // Loop n's cost: spawn of loop n to spawn of loop n+1 (its agent's wait is idle time, ~0 CPU).
  const perLoopCpu = [];
  const perLoopWall = [];
  const gapWall = [];
  const gapCpu = [];
  for (let n = 1; n < loops; n++) {
    perLoopCpu[n] = startCpu[n + 1] - startCpu[n];
    perLoopWall[n] = startWall[n + 1] - startWall[n];
    gapWall[n] = startWall[n + 1] - exitWall[n];
    gapCpu[n] = startCpu[n + 1] - exitCpu[n];
  }
  const round = (list) => list.map((v) => (v === undefined || v === null ? null : Number(v.toFixed(3))));
  process.stdout.write(
    JSON.stringify({
      loops,
      exitCode: code,
      wallMs,
      perLoopCpu: round(perLoopCpu),
      perLoopWall: round(perLoopWall),
      gapWall: round(gapWall),
      gapCpu: round(gapCpu),
      rss: round(rss),
      peakRssMb: run.peakRssMb,
      processCpuMs: Number(run.processCpuMs.toFixed(1)),
      // Items done at the end, beside the plan's one done item: the ticks of a `tick` run.
      itemsTicked: (readFileSync(join(projectDir, '.ralph/fix_plan.md'), 'utf8').match(/^- \[x\] /gm) ?? []).length - 1,
    }),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
