// The verification fixtures (tests/fixtures/verify/) as file trees for loopProject(), the
// repository's own vitest to run them with, and the session record as the loop leaves it.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunRecord } from '../../../lib/run-record/record-schema.js';
import { readRunRecordsIn } from '../../helpers/run-record-files.js';
import { LOOP_CONTEXT_HEADING } from '../../../lib/agents/loop-context.js';

export { REPO_VITEST_RUN } from '../verify/verify-fixture.js';

/** Every file of tests/fixtures/verify/<name>/, keyed by its path inside the fixture. */
export function fixtureFiles(name: 'ts-project' | 'python-project'): Record<string, string> {
  const root = fileURLToPath(new URL(`../../fixtures/verify/${name}/`, import.meta.url));
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return files;
}

/** The run records in .ralph/sessions/, read as ralph stores them (throws when one is invalid). */
export function readRunRecords(projectDir: string): RunRecord[] {
  return readRunRecordsIn(join(projectDir, '.ralph', 'sessions'));
}

/** The one run record a test expects. */
export function readOnlyRunRecord(projectDir: string): RunRecord {
  const records = readRunRecords(projectDir);
  if (records.length !== 1) throw new Error(`expected one run record, found ${records.length}`);
  return records[0]!;
}

/** The loop context ralph sent after the prompt on an agent call's stdin ('' when none). */
export function loopContextIn(stdin: string | undefined): string {
  const marker = `\n---\n${LOOP_CONTEXT_HEADING}\n\n`;
  const at = stdin?.lastIndexOf(marker) ?? -1;
  return at < 0 ? '' : stdin!.slice(at + marker.length).replace(/\n$/, '');
}
