// ralph-setup and ralph-migrate as users run them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let workspace: TmpProject | undefined;
afterEach(() => workspace?.cleanup());

const gitIn = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' }).trim();

describe('ralph-setup', () => {
  it('creates the project tree and one commit, and prints the next steps', async () => {
    workspace = tmpProject({});
    const result = await runCli('ralph-setup', ['demo'], { cwd: workspace.dir, env: GIT_TEST_ENV });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('🚀 Setting up Ralph project: demo');
    expect(result.stdout).toContain('✅ Project demo created!');
    // The README's order: the tasks, then --doctor (no agent call), then the loop.
    const steps = result.stdout.slice(result.stdout.indexOf('Next steps:'));
    expect(steps.indexOf('fix_plan.md')).toBeLessThan(steps.indexOf('ralph --doctor'));
    expect(steps.indexOf('ralph --doctor')).toBeLessThan(steps.indexOf('ralph --monitor'));
    const project = workspace.path('demo');
    for (const path of [
      'src',
      '.ralph/PROMPT.md',
      '.ralph/fix_plan.md',
      '.ralph/AGENT.md',
      '.ralph/specs',
      '.ralph/logs',
      '.ralphrc',
      '.gitignore',
      'README.md',
    ]) {
      expect(existsSync(join(project, path)), path).toBe(true);
    }
    expect(gitIn(project, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(gitIn(project, 'log', '-1', '--format=%s')).toBe('Initial Ralph project setup');
  });

  it('keeps a README that is already there', async () => {
    workspace = tmpProject({ 'existing/README.md': '# Existing\n\nHand-written.\n' });
    const result = await runCli('ralph-setup', ['existing'], { cwd: workspace.dir, env: GIT_TEST_ENV });
    expect(result.code).toBe(0);
    expect(readFileSync(workspace.path('existing/README.md'), 'utf8')).toBe('# Existing\n\nHand-written.\n');
    expect(result.stdout).toContain('[SKIP] README.md already exists');
  });

  it('run again on the same project changes nothing and says so, instead of "created"', async () => {
    workspace = tmpProject({});
    expect((await runCli('ralph-setup', ['demo'], { cwd: workspace.dir, env: GIT_TEST_ENV })).code).toBe(0);
    const again = await runCli('ralph-setup', ['demo'], { cwd: workspace.dir, env: GIT_TEST_ENV });
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('created!');
    expect(again.stdout).toContain('Project demo is already set up: nothing was changed (--force replaces its files, keeping a backup).');
    expect(gitIn(workspace.path('demo'), 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('quotes a project name with a space in the cd it suggests', async () => {
    workspace = tmpProject({});
    const result = await runCli('ralph-setup', ['my project'], { cwd: workspace.dir, env: GIT_TEST_ENV });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("  1. cd 'my project'\n");
  });

  it('defaults to my-project and warns (but commits) when git has no identity', async () => {
    workspace = tmpProject({});
    const home = workspace.path('home');
    mkdirSync(home);
    const env = {
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: join(home, 'none'),
      GIT_AUTHOR_NAME: '',
      GIT_AUTHOR_EMAIL: '',
      GIT_COMMITTER_NAME: '',
      GIT_COMMITTER_EMAIL: '',
      EMAIL: '',
    };
    const result = await runCli('ralph-setup', [], { cwd: workspace.dir, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('git has no user.name/user.email configured');
    expect(gitIn(workspace.path('my-project'), 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('rejects an unknown flag with exit 1 and a hint', async () => {
    workspace = tmpProject({});
    const result = await runCli('ralph-setup', ['--nope'], { cwd: workspace.dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Error: Unknown argument: nope\nhint: run ralph-setup --help/);
    expect(readdirSync(workspace.dir)).toEqual([]);
  });
});

describe('ralph-migrate', () => {
  it('moves a flat project into .ralph/ with a backup; a second run changes nothing', async () => {
    workspace = tmpProject({ 'PROMPT.md': 'prompt\n', '@fix_plan.md': '- [ ] task\n', '@AGENT.md': 'agent\n', 'specs/a.md': 'spec\n' });
    const first = await runCli('ralph-migrate', [workspace.dir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Backup created:');
    expect(readFileSync(workspace.path('.ralph/fix_plan.md'), 'utf8')).toBe('- [ ] task\n');
    expect(readFileSync(workspace.path('.ralph/specs/a.md'), 'utf8')).toBe('spec\n');
    const backups = readdirSync(workspace.dir).filter((name) => name.startsWith('.ralph_backup_'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(workspace.path(`${backups[0]}/PROMPT.md`), 'utf8')).toBe('prompt\n');
    const listing = readdirSync(workspace.dir).sort();

    const second = await runCli('ralph-migrate', [], { cwd: workspace.dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Project is already using the new .ralph/ structure');
    expect(readdirSync(workspace.dir).sort()).toEqual(listing);
  });

  it('says so when there is nothing to migrate', async () => {
    workspace = tmpProject({ 'README.md': 'x' });
    const result = await runCli('ralph-migrate', [workspace.dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No Ralph project files found. Nothing to migrate.');
  });
});
