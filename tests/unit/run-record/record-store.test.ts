import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { startAttempt } from '../../../lib/run-record/attempts.js';
import { transitionRun } from '../../../lib/run-record/run-record.js';
import { runSummarySchema } from '../../../lib/run-record/record-layout.js';
import { findResumableRun, loadLatestRunRecord, loadRunRecord, NOTHING_LOGGED, runRecordPath, saveRunRecord } from '../../../lib/run-record/record-store.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { newRecord, T0 } from './record-fixture.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

function setup() {
  project = tmpProject({ '.ralph/PROMPT.md': '# P\n' });
  const logger = createMemoryLogger();
  return { paths: ralphPaths(project.dir), logger, options: { logger, clock: fakeClock() } };
}

describe('run record store', () => {
  it('saves under .ralph/sessions/<run-id>.json and loads the same record back', () => {
    const { paths, options } = setup();
    const record = startAttempt(newRecord(), 1, T0);
    saveRunRecord(paths, record);
    const file = runRecordPath(paths, record.run_id);
    expect(file).toBe(join(project!.dir, '.ralph', 'sessions', '20261130T031000Z-abc123.json'));
    expect(runSummarySchema.safeParse(JSON.parse(readFileSync(file, 'utf8'))).success).toBe(true);
    expect(loadRunRecord(file, options)).toEqual({ status: 'ok', record, position: NOTHING_LOGGED });
    expect(readdirSync(paths.sessionsDir)).toEqual(['20261130T031000Z-abc123.json']);
  });

  it('refuses to write an invalid record', () => {
    const { paths } = setup();
    const bad = { ...newRecord(), status: 'done' } as never;
    expect(() => saveRunRecord(paths, bad)).toThrow(/Invalid run record .*status/);
    expect(existsSync(paths.sessionsDir)).toBe(false);
  });

  it('finds the latest run, and resumes it only when it has not ended', () => {
    const { paths, options } = setup();
    const older = startAttempt(newRecord('20261129T000000Z-000001'), 1, T0);
    const newer = transitionRun(transitionRun(newRecord('20261130T000000Z-000002'), 'active', 'x', T0), 'converged', 'x', T0);
    saveRunRecord(paths, older);
    expect(findResumableRun(paths, options)?.run_id).toBe(older.run_id);
    saveRunRecord(paths, newer);
    expect(loadLatestRunRecord(paths, options)?.run_id).toBe(newer.run_id);
    expect(findResumableRun(paths, options)).toBeUndefined();
  });

  it('sets a corrupt record aside with a warning and uses the next one', () => {
    const { paths, options, logger } = setup();
    saveRunRecord(paths, newRecord('20261129T000000Z-000001'));
    mkdirSync(paths.sessionsDir, { recursive: true });
    writeFileSync(join(paths.sessionsDir, '20261130T000000Z-bad.json'), '{"schema_version":1,');
    expect(loadLatestRunRecord(paths, options)?.run_id).toBe('20261129T000000Z-000001');
    expect(readdirSync(paths.sessionsDir).some((n) => n.startsWith('20261130T000000Z-bad.json.corrupt-'))).toBe(true);
    expect(logger.messages('WARN').join('\n')).toMatch(/20261130T000000Z-bad\.json is unreadable/);
  });

  it('leaves a record of another schema version alone and resumes nothing older than it', () => {
    const { paths, options } = setup();
    saveRunRecord(paths, newRecord('20261129T000000Z-000001'));
    const future = join(paths.sessionsDir, '20261130T000000Z-future.json');
    writeFileSync(future, JSON.stringify({ schema_version: 3, run_id: 'x' }));
    expect(loadRunRecord(future, options)).toEqual({ status: 'other-version' });
    expect(findResumableRun(paths, options)).toBeUndefined();
    expect(existsSync(future)).toBe(true);
  });

  it('has nothing to find without a sessions dir', () => {
    const { paths, options } = setup();
    expect(loadLatestRunRecord(paths, options)).toBeUndefined();
    expect(loadRunRecord(join(paths.sessionsDir, 'nope.json'), options)).toEqual({ status: 'missing' });
  });
});
