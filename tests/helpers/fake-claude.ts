// Test helper for the scripted fake `claude` (tests/fixtures/fake-claude/). withFakeClaude()
// builds a private sandbox — bin dir with `claude` first on PATH, HOME / CLAUDE_CONFIG_DIR,
// state dir, call log — and reads back what every invocation saw and did.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessRunning } from './process-state.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const FAKE_CLAUDE_DIR = resolve(HERE, '..', 'fixtures', 'fake-claude');
/** Set by `npm test`'s global setup (fake-claude-bundle.ts): the fixture bundled into one script. */
export const BUNDLED_FAKE_CLAUDE_ENV = 'TEST_FAKE_CLAUDE_BIN';
/** The `claude` the sandboxes link to: the bundle when there is one, else the fixture's entry. */
export const FAKE_CLAUDE_BIN = process.env[BUNDLED_FAKE_CLAUDE_ENV] || join(FAKE_CLAUDE_DIR, 'claude');
/** The Node program of FAKE_CLAUDE_BIN, for `node <program>`: the bundle's entry is an sh script that runs `claude.cjs` beside it. */
export const FAKE_CLAUDE_NODE_PROGRAM = existsSync(`${FAKE_CLAUDE_BIN}.cjs`) ? `${FAKE_CLAUDE_BIN}.cjs` : FAKE_CLAUDE_BIN;
export const RECORDINGS_DIR = resolve(HERE, '..', 'fixtures', 'claude-cli-2.1.332');

/** One scripted step of a call (see tests/fixtures/fake-claude/README.md). */
export interface FakeStep {
  text?: string;
  tool?: string;
  input?: Record<string, unknown>;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  exec?: boolean;
  result?: string;
  isError?: boolean;
  parallel?: boolean;
  newMessage?: boolean;
  usage?: FakeUsage;
  delayMs?: number;
  hang?: boolean;
  /** Deny this tool call whatever the rules say (the real CLI's compound-command denials). */
  deny?: boolean;
}

export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type FakeGarbage = 'nonJson' | 'truncatedJsonLine' | 'binary' | 'emptyExit0' | 'crlf' | 'bom' | 'hugeLine' | 'duplicateResult' | 'resultWithoutInit';

export type FakeOutcome =
  | 'usage_limit'
  | 'extra_usage'
  | 'rate_limited_api_key'
  | 'overloaded'
  | 'server_error_500'
  | 'not_logged_in'
  | 'invalid_api_key'
  | 'oauth_expired'
  | 'credit_balance'
  | 'network_down'
  | 'connection_refused'
  | 'request_timeout'
  | 'prompt_too_long'
  | 'request_too_large'
  | 'model_not_found'
  | 'api_error'
  | 'error_during_execution'
  | 'max_turns'
  | 'max_budget'
  | 'context_compaction';

/** One entry of `calls` (or `defaults`). Unknown keys are allowed and ignored by the fake. */
export interface FakeCallScript {
  match?: { promptRegex?: string; promptFlags?: string; argvIncludes?: string[]; argvExcludes?: string[]; env?: Record<string, string | true> };
  profile?: '2.1.332' | '2.0.20' | '1.0.30';
  model?: string;
  auth?: 'apiKey' | 'subscription' | 'none';
  requireAuth?: boolean;
  seed?: string | number;
  now?: string | number;
  steps?: FakeStep[];
  resultText?: string;
  statusBlock?: Record<string, string | number | boolean>;
  usagePerCall?: FakeUsage;
  usage?: FakeUsage;
  costUsd?: number;
  tickFixPlan?: number | 'all';
  fixPlanPath?: string;
  writeFiles?: Record<string, string>;
  appendFiles?: Record<string, string>;
  gitAdd?: boolean | string[];
  gitCommit?: string;
  gitAllowEmpty?: boolean;
  sideEffectsFirst?: boolean;
  outcome?: FakeOutcome;
  family?: '2.1.332' | '2.1.early' | '2.0' | '1.0' | 'extra_usage';
  limitText?: string;
  resetsAt?: number;
  resetsInSec?: number;
  rateLimitType?: 'five_hour' | 'seven_day' | 'seven_day_opus' | 'seven_day_sonnet';
  timezone?: string;
  warning?: boolean;
  retries?: number;
  recoverAfter?: number;
  retryDelayMs?: number;
  delayMs?: number;
  errorText?: string;
  errors?: string[];
  apiErrorStatus?: number | null;
  apiErrorType?: string;
  apiError?: string;
  isError?: boolean;
  apiErrorExit?: number;
  exitCode?: number;
  maxTurns?: number;
  maxBudgetUsd?: number;
  structuredOutput?: unknown;
  resume?: 'notFound';
  sessionId?: string;
  delayBeforeFirstLineMs?: number;
  delayBetweenLinesMs?: number;
  hang?: 'beforeInit' | 'afterInit' | 'midTool' | 'beforeResult';
  hangMaxMs?: number;
  ignoreSigterm?: boolean;
  ignoreSigtermMs?: number;
  sigtermMode?: 'exit143' | 'signal';
  spawnChild?: boolean | { lifetimeMs?: number; holdStdout?: boolean; ignoreSigterm?: boolean; setsid?: boolean; cleanEnv?: boolean };
  crash?: { afterLines?: number; exitCode?: number; stderr?: string; signal?: NodeJS.Signals };
  garbage?: FakeGarbage | FakeGarbage[];
  hugeLineBytes?: number;
  chunking?: 'split';
  splitDelayMs?: number;
  extraFields?: boolean;
  /** Top-level fields merged into the result message (the Bash tool's flat format). */
  resultFields?: Record<string, unknown>;
  /** stream-json: lines (or objects) printed after the result, as a background child would. */
  afterResult?: Array<string | Record<string, unknown>>;
  shuffleKeys?: boolean;
  toolOutputContains?: string;
  stderrNoise?: boolean | string | string[];
  stdoutStderrInterleaved?: boolean;
  compaction?: boolean;
  honorStopHooks?: boolean;
  afterBlock?: FakeStep[];
  turns?: FakeCallScript[];
  replay?: string;
  replaySignal?: boolean;
  [key: string]: unknown;
}

export interface FakeScenario {
  defaults?: FakeCallScript;
  calls?: FakeCallScript[];
  onExhausted?: 'repeatLast' | 'error';
}

/** Everything the log recorded about one invocation (start, input, notes and end merged). */
export interface FakeCall {
  index: number;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  pid: number;
  /** The host name and uid the fake ran under (differ from the host's inside a container). */
  hostname?: string;
  uid?: number;
  startedAt: string;
  /** Raw stdin (absent when the call ended before reading it, e.g. a flag error). */
  stdin?: string;
  /** Positional prompt and stdin combined, as the run saw it. */
  prompt?: string;
  stdinTimedOut?: boolean;
  /** Position in the sequential scenario list (null when a `match` entry served the call). */
  scenarioCall?: number | null;
  /** Index of the `calls` entry used. */
  entry?: number | null;
  sessionId?: string;
  resumedFrom?: string | null;
  model?: string;
  permissionMode?: string;
  childPid?: number;
  sideEffects?: unknown[];
  sigtermIgnored?: boolean;
  crashed?: boolean;
  endedAt?: string;
  exitCode?: number;
  signal?: string | null;
  /** False when the process was killed before it could write its end record (e.g. SIGKILL). */
  finished: boolean;
}

export interface FakeClaudeOptions {
  /** Credentials put in env: an API key (default), an OAuth token, or none. */
  auth?: 'apiKey' | 'subscription' | 'none';
  /** Make the fake believe it runs as root (default false, whatever the real uid). */
  asRoot?: boolean;
  seed?: string | number;
  now?: string | number;
  /** Extra env entries (undefined deletes). */
  env?: Record<string, string | undefined>;
}

export interface FakeClaude {
  root: string;
  binDir: string;
  /** The `claude` in binDir (a symlink to the fixture). */
  claudePath: string;
  /** PATH with binDir first, FAKE_* control vars, HOME and CLAUDE_CONFIG_DIR inside root. */
  env: Record<string, string>;
  stateDir: string;
  home: string;
  configDir: string;
  logPath: string;
  scenarioPath: string;
  /** Every invocation so far, in order (including --version / flag errors). */
  calls(): FakeCall[];
  /** Only the invocations that got as far as a prompt (each has claimed its scenario entry by then). */
  runs(): FakeCall[];
  /** Replace the scenario (the call counter keeps counting). */
  setScenario(scenario: FakeScenario): void;
  /** Run `claude args…` to completion. */
  run(args: string[], options?: RunClaudeOptions): Promise<RunClaudeResult>;
  cleanup(): void;
}

export interface RunClaudeOptions {
  cwd?: string;
  input?: string;
  env?: Record<string, string | undefined>;
}

export interface RunClaudeResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

const SCRUBBED_PREFIXES = ['FAKE_CLAUDE_', 'ANTHROPIC_', 'CLAUDE_CODE_'];
const SCRUBBED = new Set(['CLAUDE_CONFIG_DIR', 'CLAUDECODE', 'IS_SANDBOX']);

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || SCRUBBED.has(name) || SCRUBBED_PREFIXES.some((p) => name.startsWith(p))) continue;
    env[name] = value;
  }
  return env;
}

function applyOverrides(env: Record<string, string>, overrides: Record<string, string | undefined> | undefined): Record<string, string> {
  const out = { ...env };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

/** Merge the fake's log records (start / input / note / end) into one FakeCall per index. */
export function readCallLog(logPath: string): FakeCall[] {
  if (!existsSync(logPath)) return [];
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a line torn by SIGKILL
    }
    const index = Number(record.index);
    const merged = byIndex.get(index) ?? { finished: false };
    const { phase, ...fields } = record;
    if (phase === 'note' && fields.signal === 'SIGTERM' && fields.ignored) {
      merged.sigtermIgnored = true;
      continue;
    }
    Object.assign(merged, fields);
    if (phase === 'end') merged.finished = true;
    byIndex.set(index, merged);
  }
  return [...byIndex.values()].map((c) => c as unknown as FakeCall).sort((a, b) => a.index - b.index);
}

/** Run a command to completion with an argv array, collecting output. */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
): Promise<RunClaudeResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.stdin.on('error', () => {}); // the fake may exit before reading stdin (flag errors)
    child.stdin.end(options.input ?? '');
    child.on('close', (code, signal) => {
      resolveRun({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code, signal });
    });
  });
}

/** A call that does real work (a new file, one plan item ticked: no guard stops it) and costs `costUsd`. */
export function paidWorkCall(n: number, costUsd = 1): FakeCallScript {
  return {
    costUsd,
    tickFixPlan: 1,
    writeFiles: { [`src/part${n}.ts`]: `export const part${n} = ${n};\n` },
    statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
  };
}

/** A sandbox in which `claude` is the fake, scripted by `scenario`. Call cleanup() when done. */
export function withFakeClaude(scenario: FakeScenario = {}, options: FakeClaudeOptions = {}): FakeClaude {
  const root = mkdtempSync(join(tmpdir(), 'fake-claude-'));
  const binDir = join(root, 'bin');
  const stateDir = join(root, 'state');
  const home = join(root, 'home');
  const configDir = join(home, '.claude');
  const scenarioPath = join(root, 'scenario.json');
  const logPath = join(stateDir, 'calls.jsonl');
  for (const dir of [binDir, stateDir, configDir]) mkdirSync(dir, { recursive: true });
  const claudePath = join(binDir, 'claude');
  symlinkSync(FAKE_CLAUDE_BIN, claudePath);
  const setScenario = (next: FakeScenario) => writeFileSync(scenarioPath, JSON.stringify(next, null, 2));
  setScenario(scenario);

  const env: Record<string, string> = {
    ...baseEnv(),
    PATH: [binDir, process.env.PATH ?? ''].join(delimiter),
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    FAKE_CLAUDE_SCENARIO: scenarioPath,
    FAKE_CLAUDE_STATE_DIR: stateDir,
    FAKE_CLAUDE_LOG: logPath,
    FAKE_CLAUDE_AS_ROOT: options.asRoot ? '1' : '0',
    // a hang that a failed test never kills still ends (exit 124) instead of lingering
    FAKE_CLAUDE_HANG_MAX_MS: '120000',
    // HOME is private, so git has no identity: give commits made in tests one.
    GIT_AUTHOR_NAME: 'Ralph Test',
    GIT_AUTHOR_EMAIL: 'ralph-test@example.invalid',
    GIT_COMMITTER_NAME: 'Ralph Test',
    GIT_COMMITTER_EMAIL: 'ralph-test@example.invalid',
  };
  const auth = options.auth ?? 'apiKey';
  if (auth === 'apiKey') env.ANTHROPIC_API_KEY = 'sk-ant-fake-test-key';
  if (auth === 'subscription') env.CLAUDE_CODE_OAUTH_TOKEN = 'sk-ant-oat-fake-test-token';
  if (options.seed !== undefined) env.FAKE_CLAUDE_SEED = String(options.seed);
  if (options.now !== undefined) env.FAKE_CLAUDE_NOW = String(options.now);
  const finalEnv = applyOverrides(env, options.env);

  const calls = () => readCallLog(logPath);
  return {
    root,
    binDir,
    claudePath,
    env: finalEnv,
    stateDir,
    home,
    configDir,
    logPath,
    scenarioPath,
    calls,
    runs: () => calls().filter((c) => c.prompt !== undefined),
    setScenario,
    run: (args, runOptions = {}) =>
      runCommand(claudePath, args, { cwd: runOptions.cwd ?? root, env: applyOverrides(finalEnv, runOptions.env), input: runOptions.input }),
    cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

export interface StartedClaude {
  child: ChildProcess;
  /** Complete stdout lines so far. */
  lines: string[];
  stderr(): string;
  /** Resolves once `count` stdout lines have arrived (rejects if the process exits first). */
  waitForLines(count: number): Promise<string[]>;
  /** Resolves once stderr contains `text`. */
  waitForStderr(text: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Start `claude args…` without waiting, for tests that act on output as it streams (signals,
 * timeouts). `detached` puts it in its own process group so the group can be killed.
 */
export function startClaude(fake: FakeClaude, args: string[], options: RunClaudeOptions & { detached?: boolean } = {}): StartedClaude {
  const child = spawn(fake.claudePath, args, {
    cwd: options.cwd ?? fake.root,
    env: applyOverrides(fake.env, options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  child.stdin?.on('error', () => {});
  child.stdin?.end(options.input ?? '');
  const lines: string[] = [];
  let partial = '';
  let err = '';
  const waiters: Array<() => void> = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  child.stdout?.on('data', (d: Buffer) => {
    partial += d.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    poke();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8');
    poke();
  });
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.on('close', (code, signal) => {
      done = true;
      poke();
      resolveExit({ code, signal });
    });
  });
  const waitFor = (ready: () => boolean, what: string) =>
    new Promise<void>((resolveWait, reject) => {
      const check = () => {
        if (ready()) return resolveWait();
        if (done) return reject(new Error(`fake claude exited before ${what}; stderr: ${err}`));
        waiters.push(check);
      };
      check();
    });
  return {
    child,
    lines,
    exited,
    stderr: () => err,
    waitForLines: async (count) => {
      await waitFor(() => lines.length >= count, `${count} stdout line(s)`);
      return lines.slice(0, count);
    },
    waitForStderr: (text) => waitFor(() => err.includes(text), `stderr "${text}"`),
  };
}

export interface Recording {
  stdout: string;
  stderr: string;
  rc: number;
}

/** A recorded run of the real CLI 2.1.332 (tests/fixtures/claude-cli-2.1.332/LABEL.*). */
export function replayRecording(label: string): Recording {
  const base = join(RECORDINGS_DIR, label);
  return {
    stdout: readFileSync(`${base}.stdout`, 'utf8'),
    stderr: readFileSync(`${base}.stderr`, 'utf8'),
    rc: Number.parseInt(readFileSync(`${base}.rc`, 'utf8'), 10),
  };
}

/** Parse NDJSON (stream-json) output; blank lines are skipped. */
export function parseJsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The happy-path script of the recordings: Read → Edit → Bash `ls -1` → final text. */
export const HAPPY_STEPS: FakeStep[] = [
  { text: "I'll read the notes file first." },
  { tool: 'Read', input: { file_path: 'notes.txt' } },
  { tool: 'Edit', input: { file_path: 'notes.txt', old_string: 'TODO: fix', new_string: 'DONE: fixed' } },
  { tool: 'Bash', input: { command: 'ls -1', description: 'List files' }, stdout: 'notes.txt' },
  { text: 'Updated notes.txt and listed the directory. All tasks complete.' },
];

/** The notes.txt the recordings' working dir held. */
export const HAPPY_NOTES = 'line one\nTODO: fix\nline three\n';

/** SIGKILLs the process group of every call of `fake` that has not finished (the agents a killed ralph left). */
export function killUnfinishedCalls(fake: FakeClaude): void {
  for (const call of fake.runs()) {
    if (!call.finished && isProcessRunning(call.pid)) {
      try {
        process.kill(-call.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}
