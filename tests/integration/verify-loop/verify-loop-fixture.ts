// The verification fixtures (tests/fixtures/verify/) as file trees for loopProject(), the
// repository's own vitest to run them with, and the session record as the loop leaves it.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runRecordSchema, type RunRecord } from '../../../lib/session-record/schema.js';

export const REPO_VITEST = fileURLToPath(new URL('../../../node_modules/.bin/vitest', import.meta.url));

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

/** The run records in .ralph/sessions/, parsed with the schema (throws when one is invalid). */
export function readRunRecords(projectDir: string): RunRecord[] {
  const dir = join(projectDir, '.ralph', 'sessions');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return [];
  }
  return names.map((n) => runRecordSchema.parse(JSON.parse(readFileSync(join(dir, n), 'utf8'))));
}

/** The one run record a test expects. */
export function readOnlyRunRecord(projectDir: string): RunRecord {
  const records = readRunRecords(projectDir);
  if (records.length !== 1) throw new Error(`expected one run record, found ${records.length}`);
  return records[0]!;
}

/** The context ralph appended to the system prompt of an agent call. */
export function appendedContext(argv: string[]): string {
  const at = argv.indexOf('--append-system-prompt');
  return at < 0 ? '' : (argv[at + 1] ?? '');
}
