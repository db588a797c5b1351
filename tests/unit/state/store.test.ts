import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import {
  defaultCircuitBreakerFile,
  defaultExitSignalsFile,
  defaultRalphSessionFile,
  defaultResponseAnalysisFile,
  defaultStatusFile,
} from '../../../lib/state/schemas.js';
import {
  appendMetrics,
  loadCircuitBreaker,
  loadExitSignals,
  loadMetrics,
  loadProgress,
  loadRalphSession,
  loadResponseAnalysis,
  loadStatus,
  saveCircuitBreaker,
  saveExitSignals,
  saveProgress,
  saveRalphSession,
  saveResponseAnalysis,
  saveStatus,
} from '../../../lib/state/store.js';
import { fixedClock, useTempDir } from './test-context.js';

const tempDir = useTempDir();

function setup() {
  const paths = ralphPaths(tempDir());
  mkdirSync(paths.ralphDir);
  const logger = createMemoryLogger();
  return { paths, logger, options: { logger, clock: fixedClock() } };
}

describe('state store round trips', () => {
  it('saves and loads every state file unchanged', () => {
    const { paths, logger, options } = setup();
    const status = { ...defaultStatusFile(), loop_count: 4, status: 'running', run_cost_usd: 0.25, pid: 1234 };
    saveStatus(paths, status);
    expect(loadStatus(paths, options)).toEqual({ value: status, status: 'ok' });

    const progress = { status: 'executing', indicator: '⠙', elapsed_seconds: 20, last_output: 'say "hi"', timestamp: 't' };
    saveProgress(paths, progress);
    expect(loadProgress(paths, options)).toEqual({ value: progress, status: 'ok' });

    const signals = { ...defaultExitSignalsFile(), done_signals: [3, 4] };
    saveExitSignals(paths, signals);
    expect(loadExitSignals(paths, options).value).toEqual(signals);

    const analysis = defaultResponseAnalysisFile();
    analysis.analysis.denied_commands = ['Bash(rm -rf /)'];
    analysis.analysis.has_permission_denials = true;
    saveResponseAnalysis(paths, analysis);
    expect(loadResponseAnalysis(paths, options).value).toEqual(analysis);

    const breaker = { ...defaultCircuitBreakerFile(), state: 'OPEN' as const, opened_at: 'x', last_error_signature: 'E1' };
    saveCircuitBreaker(paths, breaker);
    expect(loadCircuitBreaker(paths, options).value).toEqual(breaker);

    const session = { ...defaultRalphSessionFile(), session_id: 'ralph-1-2' };
    saveRalphSession(paths, session);
    expect(loadRalphSession(paths, options).value).toEqual(session);

    expect(logger.entries).toEqual([]);
  });

  it('writes status.json in the Bash field order with pretty JSON', () => {
    const { paths } = setup();
    saveStatus(paths, defaultStatusFile());
    const text = readFileSync(paths.status, 'utf8');
    expect(Object.keys(JSON.parse(text))).toEqual([
      'timestamp',
      'loop_count',
      'calls_made_this_hour',
      'max_calls_per_hour',
      'tokens_used_this_hour',
      'max_tokens_per_hour',
      'last_action',
      'status',
      'exit_reason',
      'sandbox',
      'next_reset',
    ]);
    expect(text.endsWith('}\n')).toBe(true);
    expect(statSync(paths.status).mode & 0o777).not.toBe(0);
  });

  it('appends metrics lines and reads them back, skipping a torn line', () => {
    const { paths } = setup();
    appendMetrics(paths, { timestamp: 't1', loop: 1, duration: 14, success: true, calls: 1 });
    writeFileSync(paths.metrics, `${readFileSync(paths.metrics, 'utf8')}{"timestamp":"t2","loo`);
    appendMetrics(paths, { timestamp: 't3', loop: 3, duration: 2, success: false, calls: 1, tokens: 150, cost_usd: 0.01 });
    const { entries, skipped } = loadMetrics(paths);
    expect(entries.map((e) => e.loop)).toEqual([1, 3]);
    expect(entries[1]).toMatchObject({ tokens: 150, cost_usd: 0.01 });
    expect(skipped).toBe(1);
  });
});
