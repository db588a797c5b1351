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
      'status.json': '{}',
      'src/main.ts': 'code',
    });
    const result = migrateProject(project.dir, NOW);
    expect(result).toMatchObject({ kind: 'migrated', backupDir: project.path('.ralph_backup_20260102_030405') });
    expect(readFileSync(project.path('.ralph/PROMPT.md'), 'utf8')).toBe('prompt');
    expect(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8')).toBe('plan (newer)');
    expect(readFileSync(project.path('.ralph/AGENT.md'), 'utf8')).toBe('agent');
    expect(readFileSync(project.path('.ralph/specs/api.md'), 'utf8')).toBe('api spec');
    expect(readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8')).toBe('log');
    expect(readFileSync(project.path('.ralph/.call_count'), 'utf8')).toBe('3');
    for (const gone of ['PROMPT.md', '@fix_plan.md', 'fix_plan.md', '@AGENT.md', 'specs', 'logs', '.call_count', 'status.json']) {
      expect(existsSync(project.path(gone)), gone).toBe(false);
    }
    expect(readFileSync(project.path('src/main.ts'), 'utf8')).toBe('code');
    const backup = '.ralph_backup_20260102_030405';
    expect(readFileSync(project.path(`${backup}/fix_plan.md`), 'utf8')).toBe('plan (older)');
    expect(readFileSync(project.path(`${backup}/@fix_plan.md`), 'utf8')).toBe('plan (newer)');
    expect(readFileSync(project.path(`${backup}/specs/api.md`), 'utf8')).toBe('api spec');
    expect(readFileSync(project.path(`${backup}/.call_count`), 'utf8')).toBe('3');
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
