// enableProject on real directories: what it creates, keeps, overwrites and merges.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { enableProject, type EnableProjectOptions } from '../../../lib/project/enable-project.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

function options(dir: string, overrides: Partial<EnableProjectOptions> = {}): EnableProjectOptions {
  return {
    projectDir: dir,
    context: { name: 'demo', type: 'typescript', buildCommand: '', testCommand: 'npm test', runCommand: '' },
    tasks: ['- [ ] [#1] first'],
    force: false,
    generatedBy: 'ralph-enable-ci',
    ...overrides,
  };
}

describe('enableProject', () => {
  it('creates the control files, the skeleton, .gitignore and a private .ralphrc', () => {
    project = tmpProject({});
    const result = enableProject(options(project.dir));
    expect(result).toMatchObject({
      kind: 'enabled',
      files: { '.ralph/PROMPT.md': 'created', '.ralph/fix_plan.md': 'created', '.ralph/AGENT.md': 'created', '.ralphrc': 'created', '.gitignore': 'created' },
    });
    expect(result.kind === 'enabled' && result.skeletonCreated).toEqual(expect.arrayContaining(['logs/.gitkeep', 'specs/stdlib/.gitkeep']));
    expect(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8')).toContain('- [ ] [#1] first');
    expect(readFileSync(project.path('.ralph/AGENT.md'), 'utf8')).toContain('npm test');
    expect(readFileSync(project.path('.ralphrc'), 'utf8')).toContain('TEST_COMMAND="npm test"');
    expect(statSync(project.path('.ralphrc')).mode & 0o777).toBe(0o600);
    expect(readFileSync(project.path('.ralph/specs/README.md'), 'utf8')).toContain('# Specifications for demo');
  });

  it('stops when the project is already enabled, and changes nothing', () => {
    project = tmpProject({ '.ralph/PROMPT.md': 'mine', '.ralph/fix_plan.md': 'mine', '.ralph/AGENT.md': 'mine', '.ralphrc': 'mine' });
    expect(enableProject(options(project.dir))).toEqual({ kind: 'already-enabled' });
    expect(readFileSync(project.path('.ralph/PROMPT.md'), 'utf8')).toBe('mine');
  });

  it('completes a partial project without touching the files that exist, adding its entries to .gitignore', () => {
    project = tmpProject({ '.ralph/PROMPT.md': 'mine', '.ralphrc': 'MAX_CALLS_PER_HOUR=5\n', '.gitignore': 'dist\n' });
    const result = enableProject(options(project.dir));
    expect(result).toMatchObject({ files: { '.ralph/PROMPT.md': 'skipped', '.ralph/fix_plan.md': 'created', '.ralphrc': 'skipped', '.gitignore': 'merged' } });
    expect(result.kind === 'enabled' && result.backup).toBe(undefined);
    expect(readFileSync(project.path('.ralph/PROMPT.md'), 'utf8')).toBe('mine');
    expect(readFileSync(project.path('.ralphrc'), 'utf8')).toBe('MAX_CALLS_PER_HOUR=5\n');
    const gitignore = readFileSync(project.path('.gitignore'), 'utf8');
    expect(gitignore.startsWith('dist\n')).toBe(true);
    expect(gitignore).toContain('.ralph/.call_count');
    expect(enableProject(options(project.dir, { force: true }))).toMatchObject({ files: { '.gitignore': 'unchanged' } });
    expect(readFileSync(project.path('.gitignore'), 'utf8')).toBe(gitignore);
  });

  it('with force keeps a copy of every file it replaces and says where', () => {
    project = tmpProject({
      '.ralph/PROMPT.md': 'my prompt',
      '.ralph/AGENT.md': 'my agent',
      '.ralph/fix_plan.md': 'my plan',
      '.ralphrc': 'MAX_CALLS_PER_HOUR=5\n',
    });
    const result = enableProject(options(project.dir, { force: true }));
    if (result.kind !== 'enabled' || !result.backup) throw new Error(`expected a backup, got ${JSON.stringify(result)}`);
    expect(result.backup.files.sort()).toEqual(['.ralph/AGENT.md', '.ralph/PROMPT.md', '.ralph/fix_plan.md', '.ralphrc']);
    expect(result.backup.dir.startsWith(`${project.dir}/.ralph_backup_`)).toBe(true);
    expect(readFileSync(`${result.backup.dir}/.ralph/PROMPT.md`, 'utf8')).toBe('my prompt');
    expect(readFileSync(`${result.backup.dir}/.ralphrc`, 'utf8')).toBe('MAX_CALLS_PER_HOUR=5\n');
    expect(readFileSync(project.path('.ralph/PROMPT.md'), 'utf8')).not.toBe('my prompt');
  });

  it('with force regenerates the control files, keeps extra files and merges .gitignore', () => {
    project = tmpProject({
      '.ralph/PROMPT.md': 'old',
      '.ralph/fix_plan.md': 'old',
      '.ralph/AGENT.md': 'old',
      '.ralph/specs/custom.md': 'keep me',
      '.gitignore': 'dist\n',
    });
    const result = enableProject(options(project.dir, { force: true }));
    expect(result).toMatchObject({ files: { '.ralph/PROMPT.md': 'overwritten', '.gitignore': 'merged', '.ralphrc': 'created' } });
    expect(readFileSync(project.path('.ralph/specs/custom.md'), 'utf8')).toBe('keep me');
    const gitignore = readFileSync(project.path('.gitignore'), 'utf8');
    expect(gitignore.startsWith('dist\n')).toBe(true);
    expect(gitignore).toContain('.ralph/status.json');
  });

  it('keeps a .ralphrc mode 600 when force rewrites a world-readable one', () => {
    project = tmpProject({ '.ralphrc': 'X=1\n' });
    writeFileSync(project.path('.ralphrc'), 'X=1\n', { mode: 0o644 });
    enableProject(options(project.dir, { force: true }));
    expect(statSync(project.path('.ralphrc')).mode & 0o777).toBe(0o600);
  });
});
