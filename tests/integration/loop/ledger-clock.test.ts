// The hourly call window across a wall-clock jump: the ledger keeps the boot id and uptime beside
// the wall time, so a clock set back a day (or forward) between two runs of one boot, or during
// one run, opens no new hour while less than an hour of real time has passed. An injected clock
// gives both readings (its sleeps move both: real time passes while ralph waits).

import { afterEach, describe, expect, it } from 'vitest';
import type { BootReading } from '../../../lib/platform/boot-reading.js';
import { LoopEvents } from '../../../lib/loop/events.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';
import { fakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { setTimeZone } from '../../helpers/time-zone.js';

const work = (n: number) => ({ tickFixPlan: 1, writeFiles: { [`f${n}.txt`]: String(n) }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });
const PLAN = { '.ralph/fix_plan.md': `# Plan\n${Array.from({ length: 12 }, (_, i) => `- [ ] item ${i + 1}`).join('\n')}\n` };
const SCENARIO: FakeScenario = { calls: Array.from({ length: 12 }, (_, i) => work(i + 1)) };
const MINUTE = 60_000;

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

/** A fake wall clock with a boot reading: sleeps move both, and the test moves each on its own. */
function bootClock(): FakeClock & { uptime: (ms: number) => void } {
  const clock = fakeClock('2026-11-30T03:10:00Z');
  let uptimeMs = 5 * MINUTE;
  const boot = (): BootReading => ({ bootId: 'boot-1', uptimeMs });
  const sleep = clock.sleep.bind(clock);
  return Object.assign(clock, {
    boot,
    uptime: (ms: number) => (uptimeMs += ms),
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (!signal?.aborted) uptimeMs += Math.max(0, ms);
      await sleep(ms, signal);
    },
  });
}

/** Runs ralph and returns how many calls it made before it first waited for the hourly window. */
async function callsBeforeRateWait(p: LoopProject, flags: Record<string, number>, events = new LoopEvents()): Promise<number> {
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

describe('the hourly window across a change of time zone', () => {
  it.each(['Asia/Tokyo', 'America/New_York'])(
    'a run in UTC, then one in %s 5 real minutes later: --calls 3 allows the one call left in the hour',
    async (zone) => {
      const restore = setTimeZone('UTC');
      try {
        const clock = bootClock();
        current = loopProject(SCENARIO, { files: PLAN, clock });
        await current.run({ MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 2 });
        expect(current.fake.runs()).toHaveLength(2);

        // The hour's name changes with the zone (03 in UTC, 12 in Tokyo); the real hour does not.
        setTimeZone(zone);
        clock.advance(5 * MINUTE);
        clock.uptime(5 * MINUTE);
        expect(await callsBeforeRateWait(current, { MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 6 })).toBe(1);
      } finally {
        restore();
      }
    },
  );
});

describe('the hourly window across a wall-clock jump during one run', () => {
  const DAY_BACK = Date.parse('2026-11-29T03:15:00Z');

  /** A project whose clocks move once, after the agent's second call of the run: `move`, then `realMs` of uptime. */
  function jumpAfterCall2(move: (clock: ReturnType<typeof bootClock>) => void, realMs: number): LoopEvents {
    const clock = bootClock();
    current = loopProject(SCENARIO, { files: PLAN, clock });
    const events = new LoopEvents();
    events.on('agent:finished', ({ loop }) => {
      if (loop !== 2) return;
      move(clock);
      clock.uptime(realMs);
    });
    return events;
  }

  it.each([
    ['set back a day', (clock: ReturnType<typeof bootClock>) => clock.set(DAY_BACK)],
    ['set forward two hours', (clock: ReturnType<typeof bootClock>) => clock.advance(2 * 60 * MINUTE)],
  ])('a clock %s after call 2, 5 real minutes later: --calls 3 allows one more call, not three', async (_how, move) => {
    const events = jumpAfterCall2(move, 5 * MINUTE);
    expect(await callsBeforeRateWait(current!, { MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 8 }, events)).toBe(3);
  });

  it('a clock set back a day after call 2 and more than an hour of real time: a new hour, three more calls', async () => {
    const events = jumpAfterCall2((clock) => clock.set(DAY_BACK), 61 * MINUTE);
    expect(await callsBeforeRateWait(current!, { MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 8 }, events)).toBe(5);
  });

  it('a clock set back a day at the end of a run (5 real minutes on), then a restart: the one call left in the hour', async () => {
    const events = jumpAfterCall2((clock) => clock.set(DAY_BACK), 5 * MINUTE);
    await current!.run({ MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 2 }, { events });
    expect(current!.fake.runs()).toHaveLength(2);
    // The ledger's wall time is kept in the timeline the hour is named in, not the jumped clock's.
    expect(await callsBeforeRateWait(current!, { MAX_CALLS_PER_HOUR: 3, MAX_LOOPS: 6 })).toBe(1);
  });
});
