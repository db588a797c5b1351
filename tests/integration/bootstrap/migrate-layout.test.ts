// migrateProject on real directories: flat layout → .ralph/, backup, idempotence.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateProject } from '../../../lib/project/migrate-layout.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

const NOW = new Date(2026, 0, 2, 3, 4, 5);

function snapshot(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) Object.assign(out, snapshot(`${dir}/${entry.name}`, `${rel}/`), { [`${rel}/`]: '' });
    else out[rel] = readFileSync(`${dir}/${entry.name}`, 'utf8');
  }
  return out;
}

describe('migrateProject', () => {
  it('moves the flat layout into .ralph/ after backing it up', () => {
    project = tmpProject({
      'PROMPT.md': 'prompt',
      '@fix_plan.md': 'plan (newer)',
      'fix_plan.md': 'plan (older)',
      '@AGENT.md': 'agent',
      'specs/api.md': 'api spec',
      'logs/ralph.log': 'log',
      '.call_count': '3',
      'status.json': '{"loop_count":4}',
      'src/main.ts': 'code',
    });
    const result = migrateProject(project.dir, NOW);
    expect(result).toMatchObject({ kind: 'migrated', backupDir: project.path('.ralph_backup_20260102_030405') });
    // The whole tree afterwards: every file where it belongs, nothing left at the root but the
    // project's own code, the superseded fix_plan.md only in the backup.
    const backup = '.ralph_backup_20260102_030405';
    expect(snapshot(project.dir)).toEqual({
      '.ralph/': '',
      '.ralph/PROMPT.md': 'prompt',
      '.ralph/fix_plan.md': 'plan (newer)',
      '.ralph/AGENT.md': 'agent',
      '.ralph/specs/': '',
      '.ralph/specs/api.md': 'api spec',
      '.ralph/specs/stdlib/': '',
      '.ralph/logs/': '',
      '.ralph/logs/ralph.log': 'log',
      '.ralph/docs/': '',
      '.ralph/docs/generated/': '',
      '.ralph/examples/': '',
      '.ralph/.call_count': '3',
      '.ralph/status.json': '{"loop_count":4}',
      [`${backup}/`]: '',
      [`${backup}/PROMPT.md`]: 'prompt',
      [`${backup}/@fix_plan.md`]: 'plan (newer)',
      [`${backup}/fix_plan.md`]: 'plan (older)',
      [`${backup}/@AGENT.md`]: 'agent',
      [`${backup}/specs/`]: '',
      [`${backup}/specs/api.md`]: 'api spec',
      [`${backup}/logs/`]: '',
      [`${backup}/logs/ralph.log`]: 'log',
      [`${backup}/.call_count`]: '3',
      [`${backup}/status.json`]: '{"loop_count":4}',
      'src/': '',
      'src/main.ts': 'code',
    });
  });

  it('changes nothing on a second run', () => {
    project = tmpProject({ 'PROMPT.md': 'p', 'fix_plan.md': 'f', 'AGENT.md': 'a' });
    migrateProject(project.dir, NOW);
    const before = snapshot(project.dir);
    expect(migrateProject(project.dir, new Date(2026, 0, 3))).toEqual({ kind: 'already-migrated' });
    expect(snapshot(project.dir)).toEqual(before);
  });

  it('leaves a root specs/ alone when .ralph/specs exists, and reports nothing to migrate without Ralph files', () => {
    project = tmpProject({ 'specs/user.md': 'mine', '.ralph/specs/a.md': 'ralph' });
    expect(migrateProject(project.dir, NOW)).toEqual({ kind: 'nothing-to-migrate' });
    expect(readFileSync(project.path('specs/user.md'), 'utf8')).toBe('mine');
  });

  it('renames the legacy .ralph/@fix_plan.md', () => {
    project = tmpProject({ 'PROMPT.md': 'p', '.ralph/@fix_plan.md': 'legacy plan' });
    expect(migrateProject(project.dir, NOW).kind).toBe('migrated');
    expect(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8')).toBe('legacy plan');
    expect(existsSync(project.path('.ralph/@fix_plan.md'))).toBe(false);
  });
});
