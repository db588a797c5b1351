// `ralph --doctor` through the real bin/ralph: ready in a set-up project with the agent CLI, a
// login and git; not ready (exit 1), with the fix on each failing line, where they are missing.
// It never spends an agent call: only `claude --version` may run.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function project(files: Record<string, string>, git: boolean): TmpProject {
  const p = tmpProject(files, { git });
  cleanups.push(() => p.cleanup());
  return p;
}

function fake(): FakeClaude {
  const f = withFakeClaude({ calls: [] });
  cleanups.push(() => f.cleanup());
  return f;
}

/** The report line of one check. */
function line(stdout: string, name: string): string {
  return stdout.split('\n').find((l) => l.includes(` ${name}: `)) ?? `(no ${name} line)`;
}

describe('ralph --doctor', () => {
  it('reports every check ready in a set-up project and exits 0, without an agent call', async () => {
    const p = project(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="npm test"\n` }), true);
    const f = fake();
    const r = await runCli('ralph', ['--doctor'], { cwd: p.dir, env: { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key' } });

    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(line(r.stdout, 'Node.js')).toMatch(/^\[OK\] +Node\.js: \d+\.\d+\.\d+ \(>= \d/);
    expect(line(r.stdout, 'Claude Code CLI')).toMatch(/^\[OK\] +Claude Code CLI: claude \d+\.\d+\.\d+/);
    expect(line(r.stdout, 'Claude login')).toContain('[OK]   Claude login: ANTHROPIC_API_KEY is set');
    expect(r.stdout).not.toContain('sk-ant-doctor-test-key');
    expect(line(r.stdout, 'git')).toMatch(/^\[OK\] +git: .*repository found/);
    expect(line(r.stdout, 'git identity')).toContain('[OK]   git identity: Ralph Test <ralph-test@example.com>');
    expect(line(r.stdout, 'project files')).toMatch(/^\[OK\]/);
    expect(line(r.stdout, '.gitignore')).toContain("[OK]   .gitignore: ralph's state files are ignored");
    expect(line(r.stdout, 'test command')).toContain('[OK]   test command: npm test (from .ralphrc');
    expect(r.stdout).toMatch(/Ready to run ralph/);
    expect(f.runs()).toHaveLength(0);
  });

  it('exits 1 naming each missing piece with its fix', async () => {
    const p = project({ '.gitignore': 'node_modules/\n' }, false);
    const f = fake();
    const r = await runCli('ralph', ['--doctor'], { cwd: p.dir, env: { ...f.env, PATH: '/usr/bin:/bin', CLAUDE_CODE_CMD: '' } });

    expect(r.code).toBe(1);
    expect(line(r.stdout, 'Claude Code CLI')).toMatch(/^\[FAIL\] Claude Code CLI: .* — fix: npm install -g @anthropic-ai\/claude-code/);
    expect(line(r.stdout, 'git')).toMatch(/^\[FAIL\] git: .*not a git repository — fix: git init/);
    expect(line(r.stdout, 'project files')).toMatch(/^\[FAIL\] project files: no \.ralph\/ directory here — fix: ralph-enable/);
    expect(r.stdout).toMatch(/Not ready: \d+ check\(s\) failed/);
  });

  it("warns when git would show ralph's state, and fails without a visible login", async () => {
    const p = project(ralphProjectTree({ '.gitignore': 'node_modules/\n' }), true);
    const f = fake();
    const env = { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: '', ANTHROPIC_AUTH_TOKEN: '' };
    const r = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });

    expect(line(r.stdout, '.gitignore')).toMatch(/^\[WARN\] \.gitignore: git would show ralph's state \(.*\.ralph\/status\.json.*\) — fix: printf /);
    // The fix as printed, run by a shell in the project, makes the check pass.
    execFileSync('sh', ['-c', line(r.stdout, '.gitignore').split(' — fix: ')[1]!], { cwd: p.dir });
    const again = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });
    expect(line(again.stdout, '.gitignore')).toMatch(/^\[OK\]\s+\.gitignore: /);
    expect(readFileSync(p.path('.gitignore'), 'utf8')).toMatch(/^node_modules\/\n/);
    if (process.platform !== 'darwin') {
      expect(line(r.stdout, 'Claude login')).toMatch(/^\[FAIL\] Claude login: .* — fix: run: claude, then \/login/);
      expect(r.code).toBe(1);
    }
  });
  it('fails for an empty PROMPT.md and for a test command whose program is not installed', async () => {
    const p = project(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="no-such-test-runner ./..."\n`, '.ralph/PROMPT.md': '\n  \n' }), true);
    const f = fake();
    const r = await runCli('ralph', ['--doctor'], { cwd: p.dir, env: { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key' } });

    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/\bReady\b/);
    expect(line(r.stdout, 'project files')).toContain('PROMPT.md is empty');
    expect(line(r.stdout, 'test command')).toContain('no-such-test-runner is not installed');
  });


  it('suggests ralph-migrate on the old flat layout, as ralph does', async () => {
    const p = project({ 'PROMPT.md': '# Task\n', '@fix_plan.md': '- [ ] a\n', '@AGENT.md': '# Agent\n' }, true);
    const f = fake();
    const r = await runCli('ralph', ['--doctor'], { cwd: p.dir, env: { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key' } });

    expect(r.code).toBe(1);
    expect(line(r.stdout, 'project files')).toContain('fix: ralph-migrate');
    expect(line(r.stdout, 'project files')).not.toContain('ralph-enable');
  });

});
