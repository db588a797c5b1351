// A newcomer's first run, through the real bin/* commands: set-up without claude installed,
// then a run once it is; ralph's state kept out of git; repair hints that keep the user's work;
// --force backups; ralph-migrate leaving a project ralph accepts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../../helpers/fake-claude.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

function workspace(tree: Record<string, string> = {}, git = false): TmpProject {
  const p = tmpProject(tree, { git });
  cleanups.push(() => p.cleanup());
  return p;
}

function fake(scenario: unknown): FakeClaude {
  const f = withFakeClaude(scenario as never);
  cleanups.push(() => f.cleanup());
  return f;
}

/** PATH without any `claude`, but with an `npx` (which the old generator pinned). */
function pathWithoutClaude(stubDir: string): string {
  mkdirSync(stubDir, { recursive: true });
  symlinkSync('/bin/false', join(stubDir, 'npx'));
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && !existsSync(join(dir, 'claude')));
  return [stubDir, ...dirs].join(delimiter);
}

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
const RUN_ENV = { CLAUDE_AUTO_UPDATE: 'false', FAILURE_RETRY_SECONDS: '0' };

describe('first run', () => {
  it('ralph-setup without claude installed, then ralph calls the claude on PATH at run time', async () => {
    const ws = workspace();
    const setup = await runCli('ralph-setup', ['demo'], { cwd: ws.dir, env: { ...GIT_TEST_ENV, PATH: pathWithoutClaude(ws.path('stubs')) } });
    expect(setup.code).toBe(0);
    const demo = ws.path('demo');
    const ralphrc = readFileSync(join(demo, '.ralphrc'), 'utf8');
    expect(ralphrc).not.toMatch(/^\s*CLAUDE_CODE_CMD=/m);
    expect(ralphrc).not.toContain('npx');

    // The agent stages everything, as one allowed `git add *` would.
    const f = fake({ calls: [{ resultText: 'Worked on it', writeFiles: { 'src/app.txt': 'app\n' }, gitCommit: 'agent work' }] });
    const run = await runCli('ralph', ['--max-loops', '1'], { cwd: demo, env: { ...f.env, ...RUN_ENV } });
    expect(run.stderr).not.toContain('CLAUDE CODE CLI NOT FOUND');
    expect(f.runs()).toHaveLength(1);
    expect(run.code).toBe(3);

    const committed = git(demo, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(committed).toEqual(['src/app.txt']);
    expect(git(demo, 'status', '--porcelain')).toBe('');
  });

  it('says it loaded .ralphrc only when there is one', async () => {
    const ws = workspace();
    await runCli('ralph-setup', ['demo'], { cwd: ws.dir, env: GIT_TEST_ENV });
    const demo = ws.path('demo');
    const f = fake({ calls: [{ resultText: 'ok' }] });
    const withRc = await runCli('ralph', ['--max-loops', '1'], { cwd: demo, env: { ...f.env, ...RUN_ENV } });
    expect(withRc.stdout + withRc.stderr).toContain('Loaded configuration from .ralphrc');
    (await import('node:fs')).rmSync(join(demo, '.ralphrc'));
    const without = await runCli('ralph', ['--max-loops', '1'], { cwd: demo, env: { ...f.env, ...RUN_ENV } });
    expect(without.stderr).toContain('- .ralphrc');
    expect(without.stdout + without.stderr).not.toContain('Loaded configuration');
  });
});

describe('.gitignore', () => {
  it('ralph-enable-ci adds ralph entries to an existing .gitignore once, keeping the user lines', async () => {
    const p = workspace({ 'package.json': '{"name":"pkg","scripts":{"test":"node -e 0"}}', '.gitignore': 'node_modules/\nsecret.env\n' }, true);
    const first = await runCli('ralph-enable-ci', ['--from', 'none'], { cwd: p.dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Added Ralph's entries to .gitignore");
    expect(first.stdout).not.toContain('[SKIP] .gitignore');
    const merged = readFileSync(p.path('.gitignore'), 'utf8');
    expect(merged.startsWith('node_modules/\nsecret.env\n')).toBe(true);
    for (const state of ['.ralph/.call_count', '.ralph/live.log', '.ralph/sessions/x.json', '.ralph/logs/ralph.log', '.ralph/status.json']) {
      expect(git(p.dir, 'check-ignore', state).trim(), state).toBe(state);
    }
    const again = await runCli('ralph-enable-ci', ['--from', 'none', '--force'], { cwd: p.dir });
    expect(again.code).toBe(0);
    expect(readFileSync(p.path('.gitignore'), 'utf8')).toBe(merged);
    expect(again.stdout).toContain('[SKIP] .gitignore is already up to date');
  });
});

describe('repairs keep the user work', () => {
  it('a missing fix_plan.md points to ralph-enable, which restores only that file', async () => {
    const ws = workspace();
    await runCli('ralph-setup', ['demo'], { cwd: ws.dir, env: GIT_TEST_ENV });
    const demo = ws.path('demo');
    writeFileSync(join(demo, '.ralph/PROMPT.md'), '# My own prompt\n');
    writeFileSync(join(demo, '.ralphrc'), 'MAX_CALLS_PER_HOUR=7\n');
    const fs = await import('node:fs');
    fs.rmSync(join(demo, '.ralph/fix_plan.md'));

    const f = fake({ calls: [{ resultText: 'no' }] });
    const refused = await runCli('ralph', [], { cwd: demo, env: { ...f.env, ...RUN_ENV } });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('.ralph/fix_plan.md');
    expect(refused.stderr).toMatch(/hint: .*ralph-enable\n/);
    expect(refused.stderr).not.toContain('--force');

    const restored = await runCli('ralph-enable', ['--non-interactive'], { cwd: demo });
    expect(restored.code).toBe(0);
    expect(readFileSync(join(demo, '.ralph/PROMPT.md'), 'utf8')).toBe('# My own prompt\n');
    expect(readFileSync(join(demo, '.ralphrc'), 'utf8')).toBe('MAX_CALLS_PER_HOUR=7\n');
    expect(existsSync(join(demo, '.ralph/fix_plan.md'))).toBe(true);
  });

  it('--force keeps a backup of each file it replaces, says where, and prints no "--force to regenerate"', async () => {
    const p = workspace(
      {
        '.ralph/PROMPT.md': '# Mine\n',
        '.ralph/AGENT.md': '# My agent\n',
        '.ralph/fix_plan.md': '- [ ] mine\n',
        '.ralphrc': 'MAX_CALLS_PER_HOUR=7\n',
        '.gitignore': 'x\n',
      },
      true,
    );
    const forced = await runCli('ralph-enable-ci', ['--from', 'none', '--force'], { cwd: p.dir });
    expect(forced.code).toBe(0);
    expect(forced.stdout).not.toContain('--force to regenerate');
    const backups = readdirSync(p.dir).filter((name) => name.startsWith('.ralph_backup_'));
    expect(backups).toHaveLength(1);
    expect(forced.stdout).toContain(join(p.dir, backups[0]!));
    expect(readFileSync(p.path(`${backups[0]}/.ralph/PROMPT.md`), 'utf8')).toBe('# Mine\n');
    expect(readFileSync(p.path(`${backups[0]}/.ralph/AGENT.md`), 'utf8')).toBe('# My agent\n');
    expect(readFileSync(p.path(`${backups[0]}/.ralphrc`), 'utf8')).toBe('MAX_CALLS_PER_HOUR=7\n');
    expect(git(p.dir, 'check-ignore', backups[0]!).trim()).toBe(backups[0]);
  });
});

describe('ralph-migrate', () => {
  it('leaves a project ralph runs, with its backup really git-ignored', async () => {
    const p = workspace({ 'PROMPT.md': '# Old prompt\n', '@fix_plan.md': '- [ ] task\n', '.gitignore': 'dist/\n' }, true);
    const migrated = await runCli('ralph-migrate', [], { cwd: p.dir });
    expect(migrated.code).toBe(0);
    expect(existsSync(p.path('.ralphrc'))).toBe(true);
    const backup = readdirSync(p.dir).find((name) => name.startsWith('.ralph_backup_'))!;
    expect(git(p.dir, 'check-ignore', backup).trim()).toBe(backup);
    expect(readFileSync(p.path('.gitignore'), 'utf8').startsWith('dist/\n')).toBe(true);

    const f = fake({ calls: [{ resultText: 'ok' }] });
    const run = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: { ...f.env, ...RUN_ENV } });
    expect(run.stderr).not.toContain('integrity');
    expect(f.runs()).toHaveLength(1);
    expect(run.code).toBe(3);
    expect(readFileSync(p.path('.ralph/PROMPT.md'), 'utf8')).toBe('# Old prompt\n');
  });
});
