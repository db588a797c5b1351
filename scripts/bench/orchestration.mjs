// §6 row 1 — orchestration cost per loop. The real loop (dist/loop/run-project.js, runProject)
// runs in this process against a temporary git project and the fake `claude`
// (tests/fixtures/fake-claude), which answers at once: each call appends to a file and stages
// it, reports EXIT_SIGNAL: false, and fix_plan keeps an open item, so the loop runs until
// MAX_LOOPS. Loop events time each agent's exit to the next agent's spawn (the analysis, the
// git progress check, the state writes and the guards in between), and process.cpuUsage() of
// this process — the orchestrator only; the agent and git are separate processes — gives the
// CPU per loop. The first loops are a warm-up and are not counted.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, percentile, row } from './rows.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (path) => new URL(`../../dist/${path}`, import.meta.url).href;

const LOOPS = 60;
const WARM_UP = 5;
const CPU_BUDGET_MS = 30;
const GAP_BUDGET_MS = 30;

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Ralph Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Ralph Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

function makeProject(root) {
  const dir = join(root, 'project');
  const files = {
    '.ralph/PROMPT.md': '# Task\nWork through fix_plan.md.\n',
    '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n',
    '.ralph/AGENT.md': '# Agent\n',
    '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\nFAILURE_RETRY_SECONDS=0\nMAX_CALLS_PER_HOUR=1000\n',
    '.gitignore': '.ralph/logs/\n.ralph/.*\n.ralph/status.json\n.ralph/progress.json\n.ralph/live.log\n.ralph/sessions/\n',
    'src/index.js': 'export {};\n',
  };
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, relative)), { recursive: true });
    writeFileSync(join(dir, relative), content);
  }
  const git = (...args) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

/** A private sandbox with the fake `claude` first on PATH (as tests/helpers/fake-claude.ts builds it). */
function makeFakeClaude(root) {
  const bin = join(root, 'bin');
  const home = join(root, 'home');
  const state = join(root, 'state');
  for (const d of [bin, join(home, '.claude'), state]) mkdirSync(d, { recursive: true });
  symlinkSync(join(ROOT, 'tests/fixtures/fake-claude/claude'), join(bin, 'claude'));
  const scenario = join(root, 'scenario.json');
  writeFileSync(
    scenario,
    JSON.stringify({
      defaults: { appendFiles: { 'src/progress.log': 'one more step\n' }, gitAdd: true, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } },
      calls: [{}],
      onExhausted: 'repeatLast',
    }),
  );
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(FAKE_CLAUDE_|ANTHROPIC_|CLAUDE_CODE_)/.test(name) && name !== 'CLAUDE_CONFIG_DIR') env[name] = value;
  }
  return {
    ...env,
    ...GIT_ENV,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    FAKE_CLAUDE_SCENARIO: scenario,
    FAKE_CLAUDE_STATE_DIR: state,
    FAKE_CLAUDE_LOG: join(state, 'calls.jsonl'),
    ANTHROPIC_API_KEY: 'sk-ant-bench-not-a-key',
  };
}

const quietOutput = { write() {}, isTTY: false, columns: 100 };

export async function benchOrchestration() {
  const { runProject } = await import(dist('loop/run-project.js'));
  const { LoopEvents } = await import(dist('loop/events.js'));
  const { createLogger } = await import(dist('platform/logger.js'));
  const { nodeProcessRunner } = await import(dist('platform/process.js'));
  const { systemClock } = await import(dist('platform/clock.js'));
  const { ralphPaths } = await import(dist('state/paths.js'));

  const root = mkdtempSync(join(tmpdir(), 'ralph-bench-loop-'));
  try {
    const projectDir = makeProject(root);
    const env = makeFakeClaude(root);
    const events = new LoopEvents();
    const exits = new Map();
    const gaps = [];
    let cpuAtWarmUp;
    let cpuAtLast;
    let lastLoop = 0;
    // Time spent waiting for short child processes (git) inside each gap, for the note.
    let childMs = 0;
    const gitWaits = [];
    const processRunner = {
      ...nodeProcessRunner,
      async run(...args) {
        const t = performance.now();
        try {
          return await nodeProcessRunner.run(...args);
        } finally {
          childMs += performance.now() - t;
        }
      },
    };
    events.on('agent:finished', ({ loop }) => {
      exits.set(loop, performance.now());
      childMs = 0;
    });
    events.on('agent:started', ({ loop }) => {
      const now = performance.now();
      if (loop > WARM_UP && exits.has(loop - 1)) {
        gaps.push(now - exits.get(loop - 1));
        gitWaits.push(childMs);
      }
      if (loop === WARM_UP + 1) cpuAtWarmUp = process.cpuUsage();
      cpuAtLast = process.cpuUsage();
      lastLoop = loop;
    });
    const deps = {
      clock: systemClock,
      env,
      cwd: projectDir,
      homeDir: env.HOME,
      processRunner,
      // As the CLI builds it: log lines (redacted) go to ralph.log; the terminal is not timed.
      logger: createLogger({ logFile: ralphPaths(projectDir).ralphLog, stderr: quietOutput, env, clock: systemClock }),
      stdout: quietOutput,
      stderr: quietOutput,
    };
    const signals = Object.assign(new (await import('node:events')).EventEmitter(), { exit: () => undefined });
    const started = performance.now();
    const code = await runProject({ projectDir, flags: { MAX_LOOPS: LOOPS }, deps, signals, events });
    const wallMs = performance.now() - started;
    const measured = lastLoop - (WARM_UP + 1);
    if (code !== 3 || measured < 40 || !cpuAtWarmUp) {
      throw new Error(`the benchmark loop stopped early (exit ${code}, ${lastLoop} loops); see ${projectDir}/.ralph/logs/ralph.log`);
    }
    // From the spawn of the first counted loop to the spawn of the last: whole loops only.
    const cpuMicros = cpuAtLast.user - cpuAtWarmUp.user + (cpuAtLast.system - cpuAtWarmUp.system);
    const cpuPerLoopMs = cpuMicros / 1000 / measured;
    const note = `${measured} loops after ${WARM_UP} warm-up; whole run ${Math.round(wallMs)} ms wall for ${lastLoop} loops`;
    return [
      row('orchestration CPU per loop (instant fake agent)', cpuPerLoopMs, 'ms', CPU_BUDGET_MS, 'max', note),
      row('agent exit → next spawn, median', median(gaps), 'ms', GAP_BUDGET_MS, 'max', `of which waiting for git: ${median(gitWaits).toFixed(1)} ms median`),
      row('agent exit → next spawn, p95', percentile(gaps, 95), 'ms', GAP_BUDGET_MS, 'max'),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
