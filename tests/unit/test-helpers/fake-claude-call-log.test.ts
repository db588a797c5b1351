// The fake `claude`'s call log, as tests that kill a call read it: a call is seen (its prompt in
// the log, `fake.runs()`) only once it has claimed its scenario entry, and the record says which.
// Killed at that moment, it cannot leave its entry to the next call (which would then play the
// killed call's part: a hang where the test expects the run to finish).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../../helpers/cleanups.js';
import { killUnfinishedCalls, startClaude, withFakeClaude } from '../../helpers/fake-claude.js';

const cleanups = useCleanups();

describe("the fake claude's call log", () => {
  it('names the claimed entry in the record that makes a call seen; killed then, the next call plays the next entry', async () => {
    const fake = withFakeClaude({ calls: [{ hang: 'afterInit' }, { resultText: 'The second entry.' }] });
    cleanups.push(() => fake.cleanup());
    const first = startClaude(fake, ['-p', '--output-format', 'stream-json', '--verbose'], { input: 'first', detached: true });
    cleanups.push(() => killUnfinishedCalls(fake));
    await first.waitForLines(1);
    const seen = readFileSync(fake.logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((record) => record.prompt !== undefined);
    expect(seen).toMatchObject({ prompt: 'first', scenarioCall: 0, entry: 0 });

    killUnfinishedCalls(fake);
    expect((await first.exited).signal).toBe('SIGKILL');
    const second = startClaude(fake, ['-p', '--output-format', 'json'], { input: 'second' });
    expect((await second.exited).code).toBe(0);
    expect(JSON.parse(second.lines.join('\n')) as Record<string, unknown>).toMatchObject({ result: 'The second entry.' });
    expect(fake.runs().map((call) => call.scenarioCall)).toEqual([0, 1]);
  });
});
