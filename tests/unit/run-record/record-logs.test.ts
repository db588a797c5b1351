// The run record's logs (schema 2): a save appends each settled attempt and each observation as
// one line and rewrites only the small summary; a load reads back the same record; lines the
// summary does not count (a torn last line, a line whose summary write a kill prevented) are
// ignored, and the loop's read drops them before it appends again; a schema 1 record (all
// inline) is still read, and logged at its next save.

import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { finishAttempt, startAttempt } from '../../../lib/run-record/attempts.js';
import { gapSample, recordGap } from '../../../lib/run-record/gap.js';
import { addObservation } from '../../../lib/run-record/observations.js';
import type { RunRecord } from '../../../lib/run-record/record-schema.js';
import { readRunSummaryForStatus, summarizeRunForStatus } from '../../../lib/run-record/status-summary.js';
import { loadRunRecord, runRecordPath, saveRunRecord, type LogPosition } from '../../../lib/run-record/record-store.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { newRecord, T0 } from './record-fixture.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

function setup() {
  project = tmpProject({ '.ralph/PROMPT.md': '# P\n' });
  const paths = ralphPaths(project.dir);
  const logger = createMemoryLogger();
  const loopRead = { logger, clock: fakeClock() };
  const viewerRead = { ...loopRead, quarantine: false };
  const file = (name: string) => join(paths.sessionsDir, name);
  const text = (name: string) => (existsSync(file(name)) ? readFileSync(file(name), 'utf8') : '');
  return { paths, logger, loopRead, viewerRead, file, text };
}

const ID = '20261130T031000Z-abc123';
const ATTEMPTS = `${ID}.attempts.jsonl`;
const OBSERVATIONS = `${ID}.observations.jsonl`;

/** One loop of the record: attempt started, the agent observed, finished, a gap sample. */
function loop(record: RunRecord, n: number): RunRecord {
  const at = T0 + n * 60_000;
  let next = startAttempt(record, n, at);
  next = addObservation(next, { loop: n, now: at + 1000, source: 'agent', command: 'claude', exitCode: 0, durationMs: 1000, raw: `reply ${n}` });
  next = finishAttempt(next, { loop: n, now: at + 2000, outcome: 'improving', agentResult: 'ok', action: `did ${n}`, filesChanged: [`f${n}.ts`] });
  return recordGap(next, gapSample(n, 10 - n, null), at + 2000);
}

/** Saves after every loop, as the loop does, threading the position. */
function saveLoops(paths: ReturnType<typeof ralphPaths>, loops: number): { record: RunRecord; position: LogPosition } {
  let record = newRecord();
  let position = saveRunRecord(paths, record);
  for (let n = 1; n <= loops; n++) {
    record = loop(record, n);
    position = saveRunRecord(paths, record, position);
  }
  return { record, position };
}

describe('run record logs', () => {
  it('appends one line per attempt and per observation, and reads the same record back', () => {
    const { paths, viewerRead, text } = setup();
    const { record: afterTwo, position } = saveLoops(paths, 2);
    const logAfterTwo = text(ATTEMPTS);
    const summaryAfterTwo = text(`${ID}.json`);
    const three = loop(afterTwo, 3);
    saveRunRecord(paths, three, position);

    expect(text(ATTEMPTS).startsWith(logAfterTwo)).toBe(true);
    expect(
      text(ATTEMPTS)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).loop),
    ).toEqual([1, 2, 3]);
    expect(
      text(OBSERVATIONS)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).raw),
    ).toEqual(['reply 1', 'reply 2', 'reply 3']);
    const summary = JSON.parse(text(`${ID}.json`));
    expect(summary).toMatchObject({
      schema_version: 2,
      attempts_file: ATTEMPTS,
      attempts_logged: 3,
      attempt_count: 3,
      last_attempt: { loop: 3, state: 'finished' },
      observations_logged: 3,
    });
    expect(summary.attempts).toBeUndefined();
    expect(summary.observations).toBeUndefined();
    expect(summary.gap.history).toEqual([gapSample(3, 7, null)]);
    expect(Math.abs(text(`${ID}.json`).length - summaryAfterTwo.length)).toBeLessThan(8);

    const loaded = loadRunRecord(runRecordPath(paths, ID), viewerRead);
    expect(loaded).toMatchObject({ status: 'ok', position: { attempts: 3, observations: 3, observationsBeforeLog: 0 } });
    expect(loaded.status === 'ok' && loaded.record).toEqual(three);
    expect(readRunSummaryForStatus(paths)).toEqual(summarizeRunForStatus(three));
  });

  it('keeps a running attempt in the summary only, and logs it once it is cut off', () => {
    const { paths, viewerRead, text } = setup();
    const { record, position } = saveLoops(paths, 1);
    const running = startAttempt(record, 2, T0 + 200_000);
    const next = saveRunRecord(paths, running, position);
    expect(text(ATTEMPTS).split('\n').filter(Boolean)).toHaveLength(1);
    const loaded = loadRunRecord(runRecordPath(paths, ID), viewerRead);
    expect(loaded.status === 'ok' && loaded.record.attempts.map((a) => `${a.loop}:${a.state}`)).toEqual(['1:finished', '2:running']);
    expect(readRunSummaryForStatus(paths)).toMatchObject({ attempts: 2, last_attempt: { loop: 2, state: 'running' } });
    const cutOff: RunRecord = { ...running, attempts: running.attempts.map((a) => (a.state === 'running' ? { ...a, state: 'cut-off' } : a)) };
    saveRunRecord(paths, cutOff, next);
    expect(
      text(ATTEMPTS)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).state),
    ).toEqual(['finished', 'cut-off']);
  });

  it('ignores a torn last line and a line its summary never counted; the loop read drops them before appending', () => {
    const { paths, loopRead, viewerRead, file, text } = setup();
    const { record } = saveLoops(paths, 2);
    // A kill after loop 3's line was appended but before its summary write, then one mid-append.
    const three = loop(record, 3);
    const line3 = `${JSON.stringify({ ...three.attempts[2], gap_sample: null })}\n`;
    appendFileSync(file(ATTEMPTS), `${line3}{"loop":4,"state":"fin`);
    const before = text(ATTEMPTS);

    const viewed = loadRunRecord(runRecordPath(paths, ID), viewerRead);
    expect(viewed.status === 'ok' && viewed.record).toEqual(record);
    expect(text(ATTEMPTS)).toBe(before); // a viewer changes nothing
    expect(readRunSummaryForStatus(paths)).toMatchObject({ attempts: 2, last_attempt: { loop: 2 } });

    const opened = loadRunRecord(runRecordPath(paths, ID), loopRead);
    if (opened.status !== 'ok') throw new Error(opened.status);
    expect(opened.record).toEqual(record);
    expect(
      text(ATTEMPTS)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).loop),
    ).toEqual([1, 2]);
    expect(text(ATTEMPTS).endsWith('\n')).toBe(true);
    saveRunRecord(paths, three, opened.position);
    const reread = loadRunRecord(runRecordPath(paths, ID), viewerRead);
    expect(reread.status === 'ok' && reread.record).toEqual(three);
  });

  it('reads a schema 1 record with everything inline, and logs it at its next save', () => {
    const { paths, loopRead, viewerRead, file, text } = setup();
    let record = newRecord();
    for (let n = 1; n <= 3; n++) record = loop(record, n);
    record = startAttempt({ ...record, observations_dropped: 5 }, 4, T0 + 300_000);
    mkdirSync(paths.sessionsDir, { recursive: true });
    writeFileSync(file(`${ID}.json`), `${JSON.stringify({ ...record, schema_version: 1 }, null, 2)}\n`);

    expect(readRunSummaryForStatus(paths)).toEqual(summarizeRunForStatus(record));
    const loaded = loadRunRecord(runRecordPath(paths, ID), loopRead);
    if (loaded.status !== 'ok') throw new Error(loaded.status);
    expect(loaded.record).toEqual(record);
    expect(readdirSync(paths.sessionsDir)).toEqual([`${ID}.json`]);

    saveRunRecord(paths, loaded.record, loaded.position);
    expect(JSON.parse(text(`${ID}.json`))).toMatchObject({
      schema_version: 2,
      attempts_logged: 3,
      attempt_count: 4,
      observations_logged: 3,
      observations_before_log: 5,
    });
    const migrated = loadRunRecord(runRecordPath(paths, ID), viewerRead);
    expect(migrated.status === 'ok' && migrated.record).toEqual(record);
  });
});
