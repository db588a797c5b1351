// The `--parallel` budget rows (docs/performance.md), measured side by side on this machine: three equal plan items whose
// agent calls take 3 s each (the fake `claude` waits 3 s before answering), run by `ralph`
// serially (one loop, one item per call) and by `ralph --parallel 3`, each in a fresh temporary
// git project; the row is the ratio of their wall times. Then `ralph --parallel 4` with four
// items, its peak RSS read from /proc (VmHWM of the one ralph process) while it runs.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { row } from './rows.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RALPH = join(ROOT, 'bin', 'ralph');
const FAKE = join(ROOT, 'tests', 'fixtures', 'fake-claude', 'claude');
const CALL_MS = 3000;
const RATIO_BUDGET = 0.45;
const RSS_BUDGET_MB = 100;
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

function makeProject(items, calls) {
  const root = mkdtempSync(join(tmpdir(), 'ralph-bench-parallel-'));
  const dir = join(root, 'project');
  const files = {
    '.ralph/PROMPT.md': '# Task\nWork through fix_plan.md.\n',
    '.ralph/AGENT.md': '# Agent\n',
    '.ralph/fix_plan.md': `# Fix Plan\n${items.map((item) => `- [ ] ${item}`).join('\n')}\n`,
    // The gate runs one passing test (a gate that runs none is not a pass).
    'gate.js': "console.log('TAP version 13\\nok 1 - bench\\n1..1');\n",
    '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\nFAILURE_RETRY_SECONDS=0\nKILL_GRACE_SECONDS=1\nTEST_COMMAND="node gate.js"\n',
    '.gitignore':
      '.ralph/logs/\n.ralph/.*\n.ralph/status.json\n.ralph/progress.json\n.ralph/live.log\n.ralph/sessions/\n.ralph/worktrees/\n.ralph/parallel.json\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const env = { ...process.env, ...GIT_ENV, NO_COLOR: '1' };
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  const bin = join(root, 'bin');
  const state = join(root, 'state');
  const home = join(root, 'home');
  for (const d of [bin, state, join(home, '.claude')]) mkdirSync(d, { recursive: true });
  symlinkSync(FAKE, join(bin, 'claude'));
  writeFileSync(join(root, 'scenario.json'), JSON.stringify({ calls }));
  return {
    root,
    dir,
    env: {
      ...env,
      PATH: [bin, process.env.PATH ?? ''].join(delimiter),
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_API_KEY: 'sk-ant-bench',
      FAKE_CLAUDE_SCENARIO: join(root, 'scenario.json'),
      FAKE_CLAUDE_STATE_DIR: state,
      FAKE_CLAUDE_LOG: join(state, 'calls.jsonl'),
      FAKE_CLAUDE_AS_ROOT: '0',
    },
  };
}

/** Runs ralph to its end; wall ms and the peak RSS (MB) of the ralph process seen in /proc. */
function runRalph(project, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [RALPH, ...args], { cwd: project.dir, env: project.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    let peakKb = 0;
    child.stderr.on('data', (c) => (err += c));
    const poll = setInterval(() => {
      try {
        const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
        peakKb = Math.max(peakKb, kb);
      } catch {
        // gone, or no /proc on this system
      }
    }, 50);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      if (code !== 0) reject(new Error(`ralph ${args.join(' ')} exited ${code}:\n${err.trim().split('\n').slice(-15).join('\n')}`));
      else resolve({ wallMs: performance.now() - started, peakRssMb: peakKb > 0 ? peakKb / 1024 : null });
    });
  });
}

const doesItem = (item) => ({
  match: { promptRegex: `one item of the plan: ${item}` },
  delayBeforeFirstLineMs: CALL_MS,
  tickFixPlan: 'all',
  writeFiles: { [`${item.replace(/\W+/g, '-')}.txt`]: `${item}\n` },
  resultText: `Did ${item}.`,
});

export async function benchParallel() {
  const items = ['Add alpha', 'Add beta', 'Add gamma'];
  // Serially: one loop, one item per call.
  const serial = makeProject(
    items,
    items.map((item) => ({
      delayBeforeFirstLineMs: CALL_MS,
      tickFixPlan: 1,
      writeFiles: { [`${item.replace(/\W+/g, '-')}.txt`]: `${item}\n` },
      resultText: `Did ${item}.`,
    })),
  );
  const parallel = makeProject(items, items.map(doesItem));
  const four = makeProject([...items, 'Add delta'], [...items, 'Add delta'].map(doesItem));
  try {
    const serialRun = await runRalph(serial, []);
    const parallelRun = await runRalph(parallel, ['--parallel', '3']);
    const fourRun = await runRalph(four, ['--parallel', '4']);
    const ratio = parallelRun.wallMs / serialRun.wallMs;
    return [
      row(
        '--parallel 3 vs serial, three equal items, 3 s agent calls (wall ratio)',
        ratio,
        '×',
        RATIO_BUDGET,
        'max',
        `serial ${(serialRun.wallMs / 1000).toFixed(1)} s, --parallel 3 ${(parallelRun.wallMs / 1000).toFixed(1)} s, side by side`,
      ),
      row(
        'ralph --parallel 4: peak RSS of the one ralph process',
        fourRun.peakRssMb,
        'MB',
        RSS_BUDGET_MB,
        'max',
        `VmHWM from /proc, sampled every 50 ms; run of four units took ${(fourRun.wallMs / 1000).toFixed(1)} s`,
      ),
    ];
  } finally {
    for (const p of [serial, parallel, four]) rmSync(p.root, { recursive: true, force: true });
  }
}
