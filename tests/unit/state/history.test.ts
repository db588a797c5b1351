import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import type { CircuitBreakerHistoryEntry, RalphSessionHistoryEntry } from '../../../lib/state/schemas.js';
import { appendCircuitBreakerHistory, appendRalphSessionHistory, loadCircuitBreakerHistory } from '../../../lib/state/store.js';
import { fixedClock, useTempDir } from './test-context.js';

const tempDir = useTempDir();

function setup() {
  const paths = ralphPaths(tempDir());
  mkdirSync(paths.ralphDir);
  const logger = createMemoryLogger();
  return { paths, logger, options: { logger, clock: fixedClock() } };
}

const transition = (loop: number): CircuitBreakerHistoryEntry => ({
  timestamp: '2026-11-30T04:47:59+00:00',
  loop,
  from_state: 'CLOSED',
  to_state: 'HALF_OPEN',
  reason: `Monitoring: ${loop} loops without progress`,
});

describe('bounded history files', () => {
  it('keeps the newest 100 circuit breaker transitions', () => {
    const { paths, options } = setup();
    for (let loop = 1; loop <= 3; loop++) appendCircuitBreakerHistory(paths, transition(loop), options);
    expect(loadCircuitBreakerHistory(paths, options).value.map((e) => e.loop)).toEqual([1, 2, 3]);
    // The Bash tool's history grows without bound; the next append trims it.
    const unbounded = Array.from({ length: 150 }, (_, i) => transition(i + 1));
    writeFileSync(paths.circuitBreakerHistory, JSON.stringify(unbounded, null, 2));
    appendCircuitBreakerHistory(paths, transition(151), options);
    const history = JSON.parse(readFileSync(paths.circuitBreakerHistory, 'utf8')) as CircuitBreakerHistoryEntry[];
    expect(history).toHaveLength(100);
    expect(history[0]!.loop).toBe(52);
    expect(history.at(-1)).toEqual(transition(151));
  });

  it("appends to a Bash-written history, keeping its entries and an older writer's extra fields", () => {
    const { paths, options } = setup();
    writeFileSync(paths.circuitBreakerHistory, JSON.stringify([{ ...transition(2), note: 'bash' }], null, 4));
    appendCircuitBreakerHistory(paths, transition(3), options);
    expect(loadCircuitBreakerHistory(paths, options).value).toEqual([{ ...transition(2), note: 'bash' }, transition(3)]);
  });

  it('keeps the newest 50 session resets', () => {
    const { paths, options } = setup();
    const reset = (n: number): RalphSessionHistoryEntry => ({
      timestamp: '2026-11-30T03:50:13+00:00',
      from_state: 'active',
      to_state: 'reset',
      reason: 'manual_reset_flag',
      loop_number: n,
    });
    writeFileSync(paths.ralphSessionHistory, JSON.stringify(Array.from({ length: 50 }, (_, i) => reset(i + 1))));
    const result = appendRalphSessionHistory(paths, reset(51), options);
    expect(result.map((e) => e.loop_number)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    expect(JSON.parse(readFileSync(paths.ralphSessionHistory, 'utf8'))).toEqual(result);
  });

  it('starts afresh (and sets the old file aside) when the history is corrupt', () => {
    const { paths, logger, options } = setup();
    writeFileSync(paths.circuitBreakerHistory, '[{"timestamp": ');
    expect(appendCircuitBreakerHistory(paths, transition(1), options)).toEqual([transition(1)]);
    expect(readdirSync(paths.ralphDir).some((n) => n.startsWith('.circuit_breaker_history.corrupt-'))).toBe(true);
    expect(logger.messages('WARN')).toHaveLength(1);
  });
});
