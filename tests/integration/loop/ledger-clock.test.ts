// The hourly call window across a wall-clock jump: the ledger keeps the boot id and uptime beside
// the wall time, so a clock set back a day (or forward) between two runs of one boot opens no new
// hour while less than an hour of real time has passed. An injected clock gives both readings.

import { afterEach, describe, expect, it } from 'vitest';
import type { BootReading } from '../../../lib/platform/boot-reading.js';
import { LoopEvents } from '../../../lib/loop/events.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';
import { fakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';

const work = (n: number) => ({ tickFixPlan: 1, writeFiles: { [`f${n}.txt`]: String(n) }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });
const PLAN = { '.ralph/fix_plan.md': `# Plan\n${Array.from({ length: 12 }, (_, i) => `- [ ] item ${i + 1}`).join('\n')}\n` };
const SCENARIO: FakeScenario = { calls: Array.from({ length: 12 }, (_, i) => work(i + 1)) };
const MINUTE = 60_000;

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

/** A fake wall clock with a boot reading whose uptime the test moves on its own. */
function bootClock(): FakeClock & { uptime: (ms: number) => void } {
  const clock = fakeClock('2026-11-30T03:10:00Z');
  let uptimeMs = 5 * MINUTE;
  const boot = (): BootReading => ({ bootId: 'boot-1', uptimeMs });
  return Object.assign(clock, { boot, uptime: (ms: number) => (uptimeMs += ms) });
}

/** Runs ralph and returns how many calls it made before it first waited for the hourly window. */
async function callsBeforeRateWait(p: LoopProject, flags: Record<string, number>): Promise<number> {
  const events = new LoopEvents();
  let before: number | undefined;
  events.on('limit:waiting', ({ kind }) => {
    if (kind === 'rate' && before === undefined) before = p.fake.runs().length;
  });
  const start = p.fake.runs().length;
  await p.run(flags, { events });
  return (before ?? p.fake.runs().length) - start;
}

describe('the hourly window across a wall-clock jump', () => {
  it('a clock set back a day, 5 real minutes later: --calls 3 allows the one call left in the hour', async () => {
    const clock = bootClock();
    current = loopProject(SCENARIO, { files: PLAN, clock });
    await current.run({ MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 2 });
    expect(current.fake.runs()).toHaveLength(2);

    clock.set(Date.parse('2026-11-29T03:15:00Z'));
    clock.uptime(5 * MINUTE);
    expect(await callsBeforeRateWait(current, { MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 6 })).toBe(1);
  });

  it('a clock set forward two hours, 5 real minutes later: still the same hour', async () => {
    const clock = bootClock();
    current = loopProject(SCENARIO, { files: PLAN, clock });
    await current.run({ MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 2 });

    clock.advance(2 * 60 * MINUTE);
    clock.uptime(5 * MINUTE);
    expect(await callsBeforeRateWait(current, { MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 6 })).toBe(1);
  });

  it('a clock set back a day after more than an hour of real time: a new hour, three calls', async () => {
    const clock = bootClock();
    current = loopProject(SCENARIO, { files: PLAN, clock });
    await current.run({ MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 2 });

    clock.set(Date.parse('2026-11-29T03:15:00Z'));
    clock.uptime(61 * MINUTE);
    expect(await callsBeforeRateWait(current, { MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 6 })).toBe(3);
  });
});
