// A fast stand-in for `claude` for the fault suite: a few lines of POSIX sh that answer
// `--version`, read the prompt, add one new file to the project (progress) and print a recorded
// stream-json run whose result carries a RALPH_STATUS block with EXIT_SIGNAL: false. It starts in
// milliseconds, so hundreds of kill trials stay cheap. Also the project and env such runs need,
// and the checks every state file must pass after a crash.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { processesWithEnv } from '../helpers/process-state.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

const RECORDING = new URL('../fixtures/claude-cli-2.1.332/happy_sj.stdout', import.meta.url);

export const PROGRESS_TEXT = [
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

/** The recorded happy run with its final text replaced by `text` (every line stays real CLI output). */
export function buildStream(text = PROGRESS_TEXT): string {
  const lines = readFileSync(RECORDING, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  return lines
    .map((line) => {
      const message = JSON.parse(line) as Record<string, any>;
      if (message.type === 'result') message.result = text;
      if (message.type === 'assistant') {
        for (const block of message.message?.content ?? []) if (block.type === 'text') block.text = text;
      }
      return JSON.stringify(message);
    })
    .join('\n')
    .concat('\n');
}

const SCRIPT = `#!/bin/sh
# Fast fake claude (tests/fault): --version, else read stdin, add a file, print the stream.
for arg in "$@"; do
  if [ "$arg" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi
done
echo $$ >> "$FAST_AGENT_PIDS"
cat > /dev/null
if [ -n "$FAST_AGENT_HANG" ]; then head -n 1 "$FAST_AGENT_STREAM"; exec sleep 60; fi
mkdir -p work
echo "$$" > "work/w-$(date +%s%N)-$$.txt"
if [ -n "$FAST_AGENT_FINISH_PLAN" ]; then printf '# Fix Plan\n- [x] keep going\n' > .ralph/fix_plan.md; fi
cat "$FAST_AGENT_STREAM"
`;

export interface FastAgent {
  root: string;
  binDir: string;
  /** PATH with the fake first, a private HOME, git identity. */
  env: NodeJS.ProcessEnv;
  /**
   * SIGKILLs every process a killed ralph left behind (agents, their children, git: all carry
   * this agent's FAST_AGENT_PIDS) and waits until none runs, so nothing writes in the project after.
   */
  killLeftovers(): Promise<void>;
  cleanup(): void;
}

export function createFastAgent(streamText?: string): FastAgent {
  const root = mkdtempSync(join(tmpdir(), 'ralph-fast-agent-'));
  const binDir = join(root, 'bin');
  const home = join(root, 'home');
  mkdirSync(binDir, { recursive: true });
  mkdirSync(home, { recursive: true });
  const claude = join(binDir, 'claude');
  writeFileSync(claude, SCRIPT);
  chmodSync(claude, 0o755);
  const stream = join(root, 'stream.jsonl');
  writeFileSync(stream, buildStream(streamText));
  const pids = join(root, 'pids');
  const env: NodeJS.ProcessEnv = {
    ...GIT_TEST_ENV,
    PATH: `${binDir}:${process.env.PATH ?? ''}`,
    HOME: home,
    FAST_AGENT_STREAM: stream,
    FAST_AGENT_PIDS: pids,
    NO_COLOR: '1',
  };
  return {
    root,
    binDir,
    env,
    async killLeftovers() {
      const marker = `FAST_AGENT_PIDS=${pids}`;
      const deadline = Date.now() + 30_000;
      for (let alive = processesWithEnv(marker); alive.length > 0; alive = processesWithEnv(marker)) {
        if (Date.now() > deadline) throw new Error(`processes ${alive.join(', ')} survived SIGKILL for 30 s`);
        for (const pid of alive) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      if (existsSync(pids)) writeFileSync(pids, '');
    },
    cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

/** Fast loop settings plus room for hundreds of calls an hour. */
// The fast agent changes a file every call and never ticks the plan: on a quiet machine a run
// reaches the stall guard's 8 loops before its kill lands, so the guard is set out of reach.
export const FAULT_RC = `${FAST_LOOP_RC}MAX_CALLS_PER_HOUR=100000\nCB_NO_PLAN_PROGRESS_THRESHOLD=0\n`;

export function faultProject(extra: Record<string, string> = {}): TmpProject {
  return tmpProject(ralphProjectTree({ '.ralphrc': FAULT_RC, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n', ...extra }), { git: true });
}

// --- what every state file must look like after any crash ---

const JSON_FILES = [
  'status.json',
  'progress.json',
  '.exit_signals',
  '.response_analysis',
  '.circuit_breaker_state',
  '.circuit_breaker_history',
  '.ralph_session',
  '.ralph_session_history',
  '.usage_limit_wait',
  '.run_state',
  '.json_parse_result',
  '.ralph.lock',
];
const INTEGER_FILES = ['.call_count', '.token_count', '.last_reset', '.last_output_length'];

/** Problems with the state under `.ralph/` (empty when every file parses or is absent). */
export function checkStateFiles(projectDir: string): string[] {
  const dir = join(projectDir, '.ralph');
  const problems: string[] = [];
  const read = (name: string) => {
    const path = join(dir, name);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  };
  for (const name of JSON_FILES) {
    const text = read(name);
    if (text === undefined) continue;
    try {
      JSON.parse(text);
    } catch {
      problems.push(`${name} does not parse: ${JSON.stringify(text.slice(0, 80))}`);
    }
  }
  for (const name of INTEGER_FILES) {
    const text = read(name);
    if (text !== undefined && !/^-?\d+\n$/.test(text)) problems.push(`${name} is not an integer line: ${JSON.stringify(text)}`);
  }
  const session = read('.claude_session_id');
  if (session !== undefined) {
    try {
      const parsed = JSON.parse(session) as { session_id?: unknown };
      if (typeof parsed.session_id !== 'string' || parsed.session_id === '') problems.push('.claude_session_id has no session_id');
    } catch {
      problems.push(`.claude_session_id does not parse: ${JSON.stringify(session.slice(0, 80))}`);
    }
  }
  const metrics = read('logs/metrics.jsonl');
  if (metrics !== undefined) {
    metrics.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        JSON.parse(line);
      } catch {
        problems.push(`metrics.jsonl line ${i + 1} does not parse`);
      }
    });
    if (metrics !== '' && !metrics.endsWith('\n')) problems.push('metrics.jsonl ends in a partial line');
  }
  const sessions = join(dir, 'sessions');
  if (existsSync(sessions)) {
    for (const name of readdirSync(sessions).filter((n) => n.endsWith('.json'))) {
      try {
        JSON.parse(readFileSync(join(sessions, name), 'utf8'));
      } catch {
        problems.push(`sessions/${name} does not parse`);
      }
    }
    // The record's attempts and observations logs: one JSON value per line, appended whole.
    for (const name of readdirSync(sessions).filter((n) => n.endsWith('.jsonl'))) {
      const text = readFileSync(join(sessions, name), 'utf8');
      text.split('\n').forEach((line, i) => {
        if (line === '') return;
        try {
          JSON.parse(line);
        } catch {
          problems.push(`sessions/${name} line ${i + 1} does not parse`);
        }
      });
      if (text !== '' && !text.endsWith('\n')) problems.push(`sessions/${name} ends in a partial line`);
    }
  }
  return problems;
}

/** Temp files a killed writer left in `.ralph/` and its logs and sessions (the next run removes them). */
export function listTempFiles(projectDir: string): string[] {
  return ['.ralph', '.ralph/logs', '.ralph/sessions'].flatMap((dir) => {
    const path = join(projectDir, dir);
    return existsSync(path)
      ? readdirSync(path)
          .filter((n) => n.includes('.tmp-'))
          .map((n) => `${dir}/${n}`)
      : [];
  });
}
