// Every file the Bash tool (v0.11.5) left in .ralph/ must be readable by us, with its values.
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { readClaudeSessionId } from '../../../lib/sessions/claude-session-id.js';
import { readIntegerFile, readTrimmedText } from '../../../lib/state/integer-file.js';
import { ralphPaths, type RalphPaths } from '../../../lib/state/paths.js';
import type { StateReadOptions, StateReadStatus } from '../../../lib/state/state-file.js';
import {
  loadCircuitBreaker,
  loadCircuitBreakerHistory,
  loadExitSignals,
  loadMetrics,
  loadProgress,
  loadRalphSession,
  loadRalphSessionHistory,
  loadResponseAnalysis,
  loadStatus,
} from '../../../lib/state/store.js';
import { fixedClock, useTempDir } from './test-context.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/bash-state/', import.meta.url));
const tempDir = useTempDir();

/** Copies a fixture to `<tmp>/.ralph` so a reader that sets files aside cannot touch the original. */
function project(name: 'completed' | 'halted' | 'midrun') {
  const dir = tempDir();
  cpSync(join(FIXTURES, name), join(dir, '.ralph'), { recursive: true });
  const logger = createMemoryLogger();
  return { paths: ralphPaths(dir), logger, options: { logger, clock: fixedClock() } as StateReadOptions };
}

/** Reads every file in the fixture, and fails on any file no reader here knows about. */
function readAll(paths: RalphPaths, options: StateReadOptions) {
  const readers: Record<string, () => { status: StateReadStatus } | unknown> = {
    'status.json': () => loadStatus(paths, options),
    'progress.json': () => loadProgress(paths, options),
    '.exit_signals': () => loadExitSignals(paths, options),
    '.response_analysis': () => loadResponseAnalysis(paths, options),
    '.circuit_breaker_state': () => loadCircuitBreaker(paths, options),
    '.circuit_breaker_history': () => loadCircuitBreakerHistory(paths, options),
    '.ralph_session': () => loadRalphSession(paths, options),
    '.ralph_session_history': () => loadRalphSessionHistory(paths, options),
    '.claude_session_id': () => readClaudeSessionId(paths.claudeSessionId, options),
    '.call_count': () => readIntegerFile(paths.callCount, options),
    '.token_count': () => readIntegerFile(paths.tokenCount, options),
    '.last_reset': () => readIntegerFile(paths.lastReset, options),
    // The Bash tool's HEAD at the start of a call; ralph measures progress by content instead.
    '.loop_start_sha': () => readTrimmedText(join(paths.ralphDir, '.loop_start_sha')),
    'logs/metrics.jsonl': () => loadMetrics(paths),
  };
  const textFiles = /^(PROMPT\.md|AGENT\.md|fix_plan\.md|live\.log|logs\/(ralph|claude_output_[\d_-]+)\.log)$/;
  const results: Record<string, unknown> = {};
  for (const file of listFiles(paths.ralphDir)) {
    if (textFiles.test(file)) continue;
    const reader = readers[file];
    expect(reader, `no reader for ${file}`).toBeDefined();
    results[file] = reader!();
  }
  return results;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

describe.each(['completed', 'halted', 'midrun'] as const)('Bash-written state: %s', (name) => {
  it('reads every file as ok or recovered, never corrupt, and sets nothing aside', () => {
    const { paths, logger, options } = project(name);
    const before = listFiles(paths.ralphDir).sort();
    const results = readAll(paths, options);
    for (const [file, result] of Object.entries(results)) {
      expect(result, file).toBeDefined();
      if (result && typeof result === 'object' && 'status' in result) {
        expect([file, result.status]).toEqual([file, expect.stringMatching(/^(ok|recovered)$/)]);
      }
    }
    expect(logger.messages('WARN')).toEqual([]);
    expect(listFiles(paths.ralphDir).sort()).toEqual(before);
  });
});

describe('Bash-written values', () => {
  it('completed: plan_complete status, 5 metrics lines, CLOSED breaker, project_complete reset', () => {
    const { paths, options } = project('completed');
    expect(loadStatus(paths, options).value).toMatchObject({
      timestamp: '2026-11-30T03:50:13+00:00',
      loop_count: 6,
      calls_made_this_hour: 5,
      max_calls_per_hour: 100,
      tokens_used_this_hour: 750,
      max_tokens_per_hour: 0,
      last_action: 'graceful_exit',
      status: 'completed',
      exit_reason: 'plan_complete',
      sandbox: { provider: 'none' },
      next_reset: '04:50:13',
    });
    const metrics = loadMetrics(paths);
    expect(metrics.skipped).toBe(0);
    expect(metrics.entries.map((m) => m.loop)).toEqual([1, 2, 3, 4, 5]);
    expect(metrics.entries[0]).toEqual({
      timestamp: '2026-11-30T03:48:48+00:00',
      loop: 1,
      duration: 14,
      success: true,
      calls: 1,
    });
    expect(loadCircuitBreaker(paths, options).value).toMatchObject({ state: 'CLOSED', last_progress_loop: 5, current_loop: 5 });
    expect(loadCircuitBreakerHistory(paths, options).value).toEqual([]);
    expect(loadRalphSession(paths, options).value).toEqual({
      session_id: '',
      created_at: '',
      last_used: '',
      reset_at: '2026-11-30T03:50:13+00:00',
      reset_reason: 'project_complete',
    });
    expect(loadRalphSessionHistory(paths, options).value).toEqual([
      { timestamp: '2026-11-30T03:50:13+00:00', from_state: 'active', to_state: 'reset', reason: 'project_complete', loop_number: 6 },
    ]);
    expect(readIntegerFile(paths.callCount, options)).toBe(5);
    expect(readIntegerFile(paths.tokenCount, options)).toBe(750);
    expect(readIntegerFile(paths.lastReset, options)).toBe(2026113003);
    expect(loadProgress(paths, options)).toEqual({ value: { status: 'completed', timestamp: '2026-11-30 03:50:04' }, status: 'ok' });
  });

  it('halted: OPEN breaker with its history, halted status', () => {
    const { paths, options } = project('halted');
    expect(loadCircuitBreaker(paths, options).value).toEqual({
      state: 'OPEN',
      last_change: '2026-11-30T04:48:19+00:00',
      consecutive_no_progress: 3,
      consecutive_same_error: 0,
      consecutive_permission_denials: 0,
      last_progress_loop: 0,
      total_opens: 1,
      reason: 'No recovery, opening circuit after 3 loops',
      current_loop: 3,
      opened_at: '2026-11-30T04:48:19+00:00',
    });
    const history = loadCircuitBreakerHistory(paths, options).value;
    expect(history.map((h) => [h.loop, h.from_state, h.to_state])).toEqual([
      [2, 'CLOSED', 'HALF_OPEN'],
      [3, 'HALF_OPEN', 'OPEN'],
    ]);
    expect(loadStatus(paths, options).value).toMatchObject({ status: 'halted', last_action: 'circuit_breaker_open' });
    expect(loadMetrics(paths).entries.at(-1)).toMatchObject({ loop: 3, success: false });
    expect(readTrimmedText(join(paths.ralphDir, '.loop_start_sha'))).toBe('5309b4da3b5b8497c806ec7b4768c234c8c1020f');
  });

  it('midrun: executing progress salvaged from invalid JSON, JSON session id, loop 2 analysis', () => {
    const { paths, options } = project('midrun');
    // The Bash tool wrote last_output unescaped: this file is not valid JSON.
    expect(() => JSON.parse(readFileSync(paths.progress, 'utf8'))).toThrow();
    const progress = loadProgress(paths, options);
    expect(progress.status).toBe('recovered');
    expect(progress.value).toMatchObject({
      status: 'executing',
      indicator: '⠋',
      elapsed_seconds: 10,
      timestamp: '2026-11-30 04:49:03',
      last_output: '{"type":"system","subtype":"init","session_id":"a0000000-0000-4000-8000-00000000',
    });

    const session = readClaudeSessionId(paths.claudeSessionId, options);
    expect(session).toMatchObject({
      sessionId: 'a0000000-0000-4000-8000-000000000002',
      timestamp: '2026-11-30T04:48:54+00:00',
      format: 'json',
    });
    expect(session?.mtimeMs).toBeGreaterThan(0);

    const analysis = loadResponseAnalysis(paths, options).value;
    expect(analysis).toMatchObject({
      loop_number: 2,
      output_format: 'json',
      output_file: '.ralph/logs/claude_output_2026-11-30_04-48-42.log',
    });
    expect(analysis.analysis).toMatchObject({
      has_progress: true,
      files_modified: 2,
      confidence_score: 70,
      exit_signal: false,
      output_length: 549,
      denied_commands: [],
      has_compound_command_limitation: false,
      asking_questions: false,
    });
    // Fields only ours writes read as "not known", so the loop's type holds for a Bash file too.
    expect(analysis.analysis).toMatchObject({
      is_error: false,
      error_count: 0,
      error_signature: '',
      ralph_status: null,
      work_type: null,
      files_modified_claimed: null,
      claim_disagreement: null,
    });
    expect(loadExitSignals(paths, options)).toEqual({
      value: { test_only_loops: [], done_signals: [], completion_indicators: [] },
      status: 'ok',
    });
    expect(loadStatus(paths, options).value).toMatchObject({ status: 'running', exit_reason: '', loop_count: 3 });
    expect(loadRalphSession(paths, options).value.session_id).toBe('ralph-1796014103-10377');
  });
});
