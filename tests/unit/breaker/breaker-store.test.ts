// The breaker's content ids (up to a few hundred per run) live beside the ledger in a file of
// their own: the ledger, written several times a loop, and the breaker's view in .ralph/ stay the
// same size however many ids the run remembers, and a load gives the ids back as before.

import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { initialBreakerState, resetBreaker } from '../../../lib/breaker/circuit-breaker.js';
import { loadBreaker, saveBreaker } from '../../../lib/breaker/breaker-store.js';
import { saveLedgerBreaker, saveLedgerRate } from '../../../lib/state/ledger.js';
import { contentMemoryPath } from '../../../lib/state/ledger-path.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fixedClock, useTempDir } from '../state/test-context.js';

const tempDir = useTempDir('ralph-breaker-store-');
const T0 = Date.UTC(2026, 10, 30, 4, 0, 0);

function setup() {
  const dir = tempDir();
  const paths = { ...ralphPaths(dir), ledger: join(dir, 'state', 'ledger.json') };
  mkdirSync(paths.ralphDir);
  const logger = createMemoryLogger();
  return { paths, logger, options: { logger, clock: fixedClock(T0) } };
}

const ids = (count: number) => Array.from({ length: count }, (_, i) => i.toString(16).padStart(40, '0'));
const withSeen = (count: number) => ({ ...initialBreakerState(T0), seen_content: { run: 'run-1', seen: ids(count) } });

describe('the content ids seen in the run', () => {
  it('leave the ledger and the view the same size whether the run remembers 1 id or 256', () => {
    const sizes = (count: number) => {
      const { paths, options } = setup();
      saveBreaker(paths, { state: withSeen(count) }, options);
      // Each later write of the ledger (the hourly window, several a loop) carries the breaker too.
      saveLedgerRate(paths.ledger, paths.projectDir, { calls: 7, tokens: 0, lastReset: '2026113004', wall_ms: T0 });
      return { ledger: statSync(paths.ledger).size, view: statSync(paths.circuitBreakerState).size };
    };
    expect(sizes(256)).toEqual(sizes(1));
  });

  it('load as saved, beside the ledger; a reset forgets them, as it did when the breaker held them', () => {
    const { paths, options } = setup();
    saveBreaker(paths, { state: withSeen(3) }, options);
    expect(existsSync(contentMemoryPath(paths.ledger))).toBe(true);
    expect(loadBreaker(paths, options).seen_content).toEqual({ run: 'run-1', seen: ids(3) });
    saveBreaker(paths, { state: resetBreaker('Manual reset', T0) }, options);
    expect(loadBreaker(paths, options).seen_content).toBeUndefined();
  });

  it("are read from the ledger's breaker when an earlier version kept them there", () => {
    const { paths, logger, options } = setup();
    const earlier = withSeen(2);
    saveLedgerBreaker(paths.ledger, paths.projectDir, earlier);
    mkdirSync(paths.ralphDir, { recursive: true });
    saveBreaker({ ...paths, ledger: undefined }, { state: earlier }, options);
    expect(JSON.parse(readFileSync(paths.circuitBreakerState, 'utf8')).seen_content).toEqual(earlier.seen_content);
    expect(loadBreaker(paths, options).seen_content).toEqual(earlier.seen_content);
    expect(logger.entries).toEqual([]);
  });
});
