import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { finishAttempt, startAttempt } from '../../../lib/run-record/attempts.js';
import { gapSample, recordGap } from '../../../lib/run-record/gap.js';
import { readRunSummaryForStatus, summarizeRunForStatus } from '../../../lib/run-record/status-summary.js';
import { saveRunRecord } from '../../../lib/run-record/record-store.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { newRecord, T0 } from './record-fixture.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

function setup() {
  project = tmpProject({});
  const paths = ralphPaths(project.dir);
  mkdirSync(paths.sessionsDir, { recursive: true });
  return paths;
}

function oneLoop(runId: string) {
  let record = startAttempt(newRecord(runId), 1, T0);
  record = finishAttempt(record, { loop: 1, now: T0 + 60_000, outcome: 'stuck', agentResult: 'ok', filesChanged: ['a.ts'] });
  return recordGap(record, gapSample(1, 2, 1), T0 + 60_000);
}

describe('readRunSummaryForStatus', () => {
  it('summarizes the newest record, and is null when there is none', () => {
    const paths = setup();
    expect(readRunSummaryForStatus(paths)).toBeNull();
    saveRunRecord(paths, newRecord('20261130T031000Z-aaaaaa'));
    const newest = oneLoop('20261130T041000Z-bbbbbb');
    saveRunRecord(paths, newest);
    expect(readRunSummaryForStatus(paths)).toEqual(summarizeRunForStatus(newest));
    expect(readRunSummaryForStatus(paths)).toMatchObject({
      run_id: '20261130T041000Z-bbbbbb',
      attempts: 1,
      gap_text: 'gap 3 (2 open items + 1 failing test) → stagnant',
    });
  });

  it('skips an unreadable newest record without touching it; another schema version means none', () => {
    const paths = setup();
    saveRunRecord(paths, oneLoop('20261130T031000Z-aaaaaa'));
    writeFileSync(join(paths.sessionsDir, '20261130T041000Z-bbbbbb.json'), '{"schema_version":1,"run_id":');
    writeFileSync(join(paths.sessionsDir, '20261130T040000Z-cccccc.json'), JSON.stringify({ schema_version: 1, run_id: 'x', attempts: 'no' }));
    expect(readRunSummaryForStatus(paths)).toMatchObject({ run_id: '20261130T031000Z-aaaaaa' });
    // Read-only: nothing set aside.
    expect(readdirSync(paths.sessionsDir).sort()).toEqual([
      '20261130T031000Z-aaaaaa.attempts.jsonl',
      '20261130T031000Z-aaaaaa.json',
      '20261130T040000Z-cccccc.json',
      '20261130T041000Z-bbbbbb.json',
    ]);
    writeFileSync(join(paths.sessionsDir, '20261130T050000Z-dddddd.json'), JSON.stringify({ schema_version: 3, run_id: 'future' }));
    expect(readRunSummaryForStatus(paths)).toBeNull();
  });

  it('skips a FIFO in place of the newest record or of its attempts log, without waiting for a writer', () => {
    const paths = setup();
    saveRunRecord(paths, oneLoop('20261130T031000Z-aaaaaa'));
    saveRunRecord(paths, oneLoop('20261130T041000Z-bbbbbb'));
    const log = join(paths.sessionsDir, '20261130T041000Z-bbbbbb.attempts.jsonl');
    rmSync(log);
    execFileSync('mkfifo', [join(paths.sessionsDir, '20261130T050000Z-cccccc.json'), log]);
    expect(readRunSummaryForStatus(paths)).toMatchObject({ run_id: '20261130T041000Z-bbbbbb', attempts: 1 });
  });
});

describe('readRunSummaryForStatus over a long run', () => {
  it('reads the last loops from the end of the attempts log, however long the log has grown', () => {
    const paths = setup();
    let record = newRecord('20261130T041000Z-bbbbbb');
    for (const loop of [1, 2, 3]) {
      record = startAttempt(record, loop, T0 + loop * 60_000);
      record = finishAttempt(record, { loop, now: T0 + loop * 60_000 + 1000, outcome: 'stuck', agentResult: 'ok', filesChanged: [] });
      saveRunRecord(paths, record);
    }
    const log = join(paths.sessionsDir, '20261130T041000Z-bbbbbb.attempts.jsonl');
    const lines = readFileSync(log, 'utf8');
    // Thousands of loops before these (a hole reads as zeros): more than one read of a file can hold.
    truncateSync(log, 0);
    truncateSync(log, 2.5 * 1024 ** 3);
    appendFileSync(log, `\n${lines}`);
    expect(readRunSummaryForStatus(paths)?.agents_by_loop.map((entry) => entry.loop)).toEqual([1, 2, 3]);
  });
});
