import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { circuitBreakerFileSchema, defaultCircuitBreakerFile, statusFileSchema, defaultStatusFile } from '../../../lib/state/schemas.js';
import { readStateFile } from '../../../lib/state/state-file.js';
import { loadCircuitBreaker, loadProgress, loadStatus } from '../../../lib/state/store.js';
import { fixedClock, useTempDir } from './test-context.js';

const tempDir = useTempDir();

function setup() {
  const paths = ralphPaths(tempDir());
  mkdirSync(paths.ralphDir);
  const logger = createMemoryLogger();
  const clock = fixedClock(new Date(2026, 10, 30, 4, 48, 19).getTime()); // local time
  return { paths, logger, clock, options: { logger, clock } };
}

describe('readStateFile', () => {
  it('returns the fallback for a missing file, without warnings', () => {
    const { paths, logger, options } = setup();
    const result = loadCircuitBreaker(paths, options);
    expect(result).toEqual({ value: defaultCircuitBreakerFile(), status: 'missing' });
    expect(logger.entries).toEqual([]);
  });

  it('never moves aside a file reached through a .ralph the agent made a link', () => {
    const project = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, '.circuit_breaker_state'), 'not json');
    symlinkSync(outside, join(project, '.ralph'));
    const logger = createMemoryLogger();
    const result = loadCircuitBreaker(ralphPaths(project), { logger, clock: fixedClock() });
    expect(result.value).toEqual(defaultCircuitBreakerFile());
    expect(readdirSync(outside)).toEqual(['.circuit_breaker_state']);
    expect(logger.messages('WARN')).toEqual([expect.stringContaining('could not be moved aside')]);
  });

  it('sets a corrupt .circuit_breaker_state aside, warns naming it, and returns defaults', () => {
    const { paths, logger, options } = setup();
    writeFileSync(paths.circuitBreakerState, '{"state": "OPEN", "consecutive_no_p');
    const result = loadCircuitBreaker(paths, options);

    expect(result.status).toBe('corrupt');
    expect(result.value).toEqual(defaultCircuitBreakerFile());
    const aside = join(paths.ralphDir, '.circuit_breaker_state.corrupt-20261130T044819');
    expect(result.movedTo).toBe(aside);
    expect(readFileSync(aside, 'utf8')).toBe('{"state": "OPEN", "consecutive_no_p');
    expect(existsSync(paths.circuitBreakerState)).toBe(false);
    expect(logger.messages('WARN')).toEqual([expect.stringContaining('.circuit_breaker_state')]);
  });

  it('never overwrites an earlier corrupt copy made in the same second', () => {
    const { paths, options } = setup();
    writeFileSync(paths.circuitBreakerState, 'first garbage');
    loadCircuitBreaker(paths, options);
    writeFileSync(paths.circuitBreakerState, 'second garbage');
    loadCircuitBreaker(paths, options);

    const copies = readdirSync(paths.ralphDir)
      .filter((n) => n.includes('.corrupt-'))
      .sort();
    expect(copies).toEqual(['.circuit_breaker_state.corrupt-20261130T044819', '.circuit_breaker_state.corrupt-20261130T044819-1']);
    expect(copies.map((n) => readFileSync(join(paths.ralphDir, n), 'utf8'))).toEqual(['first garbage', 'second garbage']);
  });

  it('treats valid JSON of the wrong shape as corrupt', () => {
    const { paths, logger, options } = setup();
    writeFileSync(paths.circuitBreakerState, JSON.stringify({ state: 'SIDEWAYS' }));
    expect(loadCircuitBreaker(paths, options).status).toBe('corrupt');
    writeFileSync(paths.circuitBreakerState, '[1, 2]');
    expect(loadCircuitBreaker(paths, options).status).toBe('corrupt');
    expect(logger.messages('WARN')).toHaveLength(2);
  });

  it('coerces numeric strings and fills fields an older writer left out', () => {
    const { paths, options } = setup();
    writeFileSync(paths.circuitBreakerState, JSON.stringify({ state: 'HALF_OPEN', consecutive_no_progress: '2', total_opens: 1, extra: { kept: true } }));
    const { value, status } = loadCircuitBreaker(paths, options);
    expect(status).toBe('ok');
    expect(value).toMatchObject({ state: 'HALF_OPEN', consecutive_no_progress: 2, total_opens: 1, reason: '' });
    expect(value.extra).toEqual({ kept: true }); // survives a read-modify-write
    expect(value.current_loop).toBe(0); // the Bash auto-reset variant leaves it out
  });

  it('treats an empty file (a writer between truncate and write) as missing', () => {
    const { paths, logger, options } = setup();
    writeFileSync(paths.status, '');
    expect(loadStatus(paths, options).status).toBe('missing');
    expect(existsSync(paths.status)).toBe(true);
    expect(logger.entries).toEqual([]);
  });

  it('salvages hand-built JSON with unescaped strings when lenient, without moving it', () => {
    const { paths, logger, options } = setup();
    const text = [
      '{',
      '    "timestamp": "2026-11-30T04:49:02+00:00",',
      '    "loop_count": 3,',
      '    "last_action": "said "hi" to the user",',
      '    "status": "running",',
      '    "sandbox": {"provider": "none"},',
      '    "next_reset": "05:49:02"',
      '}',
    ].join('\n');
    writeFileSync(paths.status, text);
    const result = loadStatus(paths, options);
    expect(result.status).toBe('recovered');
    expect(result.value).toMatchObject({
      loop_count: 3,
      last_action: 'said "hi" to the user',
      status: 'running',
      sandbox: { provider: 'none' },
    });
    expect(readFileSync(paths.status, 'utf8')).toBe(text);
    expect(logger.messages('WARN')).toEqual([]);
  });

  it('salvages a status.json cut off mid-write', () => {
    const { paths, options } = setup();
    writeFileSync(paths.status, '{\n    "timestamp": "2026-11-30T04:49:02+00:00",\n    "loop_count": 3,\n    "calls_made_th');
    const result = loadStatus(paths, options);
    expect(result.status).toBe('recovered');
    expect(result.value.loop_count).toBe(3);
  });

  it('does not salvage when not lenient', () => {
    const { paths, options } = setup();
    writeFileSync(paths.status, '{ "status": "a "b" c" }');
    const result = readStateFile(paths.status, statusFileSchema, defaultStatusFile(), options);
    expect(result.status).toBe('corrupt');
  });

  it('sets aside even lenient files when nothing can be salvaged', () => {
    const { paths, options } = setup();
    writeFileSync(paths.progress, '\u0000\u0001 binary junk');
    expect(loadProgress(paths, options).status).toBe('corrupt');
    expect(existsSync(paths.progress)).toBe(false);
  });

  it('leaves a corrupt file in place when quarantine is off (read-only viewers)', () => {
    const { paths, logger, options } = setup();
    writeFileSync(paths.circuitBreakerState, 'garbage');
    const result = loadCircuitBreaker(paths, { ...options, quarantine: false });
    expect(result.status).toBe('corrupt');
    expect(readFileSync(paths.circuitBreakerState, 'utf8')).toBe('garbage');
    expect(logger.messages('WARN')).toEqual([expect.stringContaining('.circuit_breaker_state')]);
  });

  it('reads a .circuit_breaker_state whose reason holds raw control characters, without setting it aside', () => {
    const { paths, logger, options } = setup();
    writeFileSync(paths.circuitBreakerState, '{"state": "OPEN", "consecutive_no_progress": 3, "reason": "x\x01\x1b[2J y"}');
    const result = loadCircuitBreaker(paths, options);
    expect(result.status).toBe('recovered');
    expect(result.value).toMatchObject({ state: 'OPEN', consecutive_no_progress: 3, reason: 'x\x01\x1b[2J y' });
    expect(existsSync(paths.circuitBreakerState)).toBe(true);
    expect(logger.messages('WARN')).toEqual([]);
  });

  it('warns and returns defaults when the path cannot be read as a file', () => {
    const { paths, logger, options } = setup();
    mkdirSync(paths.circuitBreakerState); // EISDIR, as unreadable as a file without permission
    const result = readStateFile(paths.circuitBreakerState, circuitBreakerFileSchema, defaultCircuitBreakerFile(), options);
    expect(result).toEqual({ value: defaultCircuitBreakerFile(), status: 'corrupt' });
    expect(logger.messages('WARN')).toEqual([expect.stringContaining('.circuit_breaker_state')]);
  });
});
