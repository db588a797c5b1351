// Test helper for the scripted fake `gemini` and `opencode` (tests/fixtures/fake-agents/):
// withFakeAgent() builds a sandbox — bin dir with the fake first on PATH, private HOME, state
// dir, call log — and reads back what every invocation saw.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeCliPath } from './fake-cli-paths.js';
import { GIT_TEST_ENV } from './tmp-project.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const FAKE_AGENTS_DIR = resolve(HERE, '..', 'fixtures', 'fake-agents');

export type FakeAgentCli = 'gemini' | 'opencode';

/** One run of the fake (see fake-agent.mjs): replay a recorded label, or synthesize a run. */
export interface FakeAgentCall {
  replay?: string;
  tickFixPlan?: number;
  writeFiles?: Record<string, string>;
  text?: string;
  status?: Record<string, string | number | boolean>;
  /** A shell command the agent "runs" (a tool event before the answer; OpenCode: one more step). */
  tool?: string;
  /** Gemini: the run's stats. */
  usage?: { input?: number; cached?: number; output?: number };
  /** OpenCode: each step's tokens and cost. */
  tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read: number; write: number } };
  costPerStep?: number;
}

export interface FakeAgentScenario {
  defaults?: FakeAgentCall;
  calls?: FakeAgentCall[];
}

export interface FakeAgentRun {
  index: number;
  argv: string[];
  stdin: string;
  env: { OPENCODE_CONFIG_CONTENT: string | null; GEMINI_API_KEY: string | null };
  exitCode?: number;
  sessionId?: string;
  resumedFrom?: string | null;
  unknownSession?: boolean;
  replay?: string;
}

export interface FakeAgent {
  root: string;
  env: Record<string, string>;
  runs(): FakeAgentRun[];
  cleanup(): void;
}

export function withFakeAgent(cli: FakeAgentCli, scenario: FakeAgentScenario): FakeAgent {
  const root = mkdtempSync(join(tmpdir(), `fake-${cli}-`));
  const binDir = join(root, 'bin');
  const stateDir = join(root, 'state');
  const home = join(root, 'home');
  for (const dir of [binDir, stateDir, home]) mkdirSync(dir, { recursive: true });
  symlinkSync(fakeCliPath(cli === 'gemini' ? 'TEST_FAKE_GEMINI_BIN' : 'TEST_FAKE_OPENCODE_BIN'), join(binDir, cli));
  const scenarioPath = join(root, 'scenario.json');
  writeFileSync(scenarioPath, JSON.stringify(scenario));
  const logPath = join(stateDir, 'calls.jsonl');
  const env: Record<string, string> = {
    ...scrubbed(process.env),
    ...GIT_TEST_ENV,
    PATH: [binDir, process.env.PATH ?? ''].join(delimiter),
    HOME: home,
    FAKE_AGENT_SCENARIO: scenarioPath,
    FAKE_AGENT_STATE_DIR: stateDir,
    FAKE_AGENT_LOG: logPath,
    ...(cli === 'gemini' ? { GEMINI_API_KEY: 'fake-gemini-test-key' } : {}),
  };
  return {
    root,
    env,
    runs: () => readRuns(logPath),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

function scrubbed(source: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || /^(?:FAKE_|ANTHROPIC_|CLAUDE_CODE_|GEMINI_|GOOGLE_|OPENCODE_)/.test(name)) continue;
    env[name] = value;
  }
  return env;
}

function readRuns(logPath: string): FakeAgentRun[] {
  if (!existsSync(logPath)) return [];
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const { phase: _phase, ...record } = JSON.parse(line) as Record<string, unknown>;
    const index = Number(record.index);
    byIndex.set(index, { ...byIndex.get(index), ...record });
  }
  return [...byIndex.values()].map((r) => r as unknown as FakeAgentRun).sort((a, b) => a.index - b.index);
}
