// Test helper for the scripted fake `codex` (tests/fixtures/fake-codex/). withFakeCodex() makes
// a private bin dir with `codex` first on PATH and a state dir, on top of a base environment
// (e.g. a fake claude's, for runs that use both), and reads back what every call saw.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fakeCliPath } from './fake-cli-paths.js';

export const FAKE_CODEX_BIN = fakeCliPath('TEST_FAKE_CODEX_BIN');

export interface FakeCodexCall {
  replay?: string;
  text?: string;
  statusBlock?: Record<string, string | number | boolean>;
  command?: string;
  usage?: { input_tokens?: number; cached_input_tokens?: number; output_tokens?: number };
  tickFixPlan?: number | 'all';
  writeFiles?: Record<string, string>;
}

export interface FakeCodexScenario {
  defaults?: FakeCodexCall;
  calls?: FakeCodexCall[];
}

export interface FakeCodexRun {
  index: number;
  argv: string[];
  stdin: string;
  startedAt: string;
  resumedFrom: string | null;
  sandbox: string;
  model: string | null;
  exitCode?: number;
  threadId?: string;
}

export interface FakeCodex {
  env: Record<string, string>;
  binDir: string;
  runs(): FakeCodexRun[];
  cleanup(): void;
}

export function withFakeCodex(scenario: FakeCodexScenario = {}, base: Record<string, string> = process.env as Record<string, string>): FakeCodex {
  const root = mkdtempSync(join(tmpdir(), 'fake-codex-'));
  const binDir = join(root, 'bin');
  const stateDir = join(root, 'state');
  for (const dir of [binDir, stateDir]) mkdirSync(dir, { recursive: true });
  symlinkSync(FAKE_CODEX_BIN, join(binDir, 'codex'));
  const scenarioPath = join(root, 'scenario.json');
  writeFileSync(scenarioPath, JSON.stringify(scenario));
  const env = {
    ...base,
    PATH: [binDir, base.PATH ?? ''].join(delimiter),
    FAKE_CODEX_STATE_DIR: stateDir,
    FAKE_CODEX_SCENARIO: scenarioPath,
  };
  return {
    env,
    binDir,
    runs() {
      const log = join(stateDir, 'calls.jsonl');
      if (!existsSync(log)) return [];
      const byIndex = new Map<number, Record<string, unknown>>();
      for (const line of readFileSync(log, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const { phase: _phase, ...fields } = JSON.parse(line) as Record<string, unknown>;
        const index = Number(fields.index);
        byIndex.set(index, { ...byIndex.get(index), ...fields });
      }
      return [...byIndex.values()].map((r) => r as unknown as FakeCodexRun).sort((a, b) => a.index - b.index);
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
