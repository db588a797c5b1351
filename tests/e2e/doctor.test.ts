// `ralph --doctor` through the real bin/ralph: ready in a set-up project with the agent CLI, a
// login and git; not ready (exit 1), with the fix on each failing line, where they are missing.
// It never spends an agent call: only `claude --version` may run.

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { binPath, runCli } from '../helpers/run-cli.js';
import { runCommand } from '../helpers/fake-claude.js';
import { withFakeTaskClis } from '../integration/bootstrap/fake-task-clis.js';
import { chownTree, IS_ROOT, probeMountNamespace, unprivilegedUser } from '../system/fault/isolation.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

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

  it('fails for an OPEN circuit breaker, on which ralph would halt before its first loop, and says how to close it', async () => {
    // The breaker an earlier run left, here as the Bash tool wrote it, opened just now.
    const p = project(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="npm test"\n` }), true);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const bash = JSON.parse(readFileSync(new URL('../fixtures/bash-state/halted/.circuit_breaker_state', import.meta.url), 'utf8')) as Record<string, unknown>;
    const planted = `${JSON.stringify({ ...bash, last_change: now, opened_at: now }, null, 4)}\n`;
    writeFileSync(p.path('.ralph/.circuit_breaker_state'), planted);
    const f = fake();
    const env = { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key', CB_COOLDOWN_MINUTES: '10080' };

    const r = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });
    expect(r.code).toBe(1);
    expect(line(r.stdout, 'circuit breaker')).toMatch(
      /^\[FAIL\] circuit breaker: OPEN \(No recovery, opening circuit after 3 loops\): ralph would halt before its first loop — fix: .*ralph --reset-circuit/,
    );
    // The doctor only looks: the breaker is as it was.
    expect(readFileSync(p.path('.ralph/.circuit_breaker_state'), 'utf8')).toBe(planted);

    expect((await runCli('ralph', ['--reset-circuit'], { cwd: p.dir, env })).code).toBe(0);
    const after = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).not.toContain('circuit breaker');
    expect(f.runs()).toHaveLength(0);
  });

  it('warns about a plan that is still the template: no task in a new project, the old generic items, and says OK once a task is written', async () => {
    const f = fake();
    const env = { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key' };
    const parent = project({}, false);
    expect((await runCli('ralph-setup', ['fresh'], { cwd: parent.dir, env })).code).toBe(0);
    const fresh = parent.path('fresh');
    const empty = await runCli('ralph', ['--doctor'], { cwd: fresh, env });
    expect(line(empty.stdout, 'fix_plan.md')).toBe(
      '[WARN] fix_plan.md: no task yet: the agent works from PROMPT.md alone, and no plan says when it is done — fix: write one "- [ ] task" line per task under ## Tasks in .ralph/fix_plan.md',
    );

    const former = '# Ralph Fix Plan\n## High Priority\n- [ ] Review the codebase and the specifications in .ralph/specs/\n- [ ] Improve the README\n';
    const old = project(ralphProjectTree({ '.ralph/fix_plan.md': former }), true);
    const stale = await runCli('ralph', ['--doctor'], { cwd: old.dir, env });
    expect(line(stale.stdout, 'fix_plan.md')).toMatch(/^\[WARN\] fix_plan\.md: 2 open item\(s\) are still the template's generic tasks \("Review the codebase/);

    execFileSync('sh', ['-c', `echo '- [ ] Add hello.sh, which prints "Hello"' >> .ralph/fix_plan.md`], { cwd: fresh });
    const ready = await runCli('ralph', ['--doctor'], { cwd: fresh, env });
    expect(line(ready.stdout, 'fix_plan.md')).toBe('[OK]   fix_plan.md: 1 open task(s), 0 done');
    expect(f.runs()).toHaveLength(0);
  });

  it('exits 1 naming each missing piece with its fix', async () => {
    const p = project({ '.gitignore': 'node_modules/\n' }, false);
    const f = fake();
    const r = await runCli('ralph', ['--doctor'], { cwd: p.dir, env: { ...f.env, PATH: '/usr/bin:/bin', CLAUDE_CODE_CMD: '' } });

    expect(r.code).toBe(1);
    expect(line(r.stdout, 'Claude Code CLI')).toMatch(/^\[FAIL\] Claude Code CLI: .* — fix: npm install -g @anthropic-ai\/claude-code/);
    expect(line(r.stdout, 'git')).toMatch(/^\[WARN\] git: .*not a git repository: ralph still runs, but .* — fix: git init/);
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

  it('fails for a .ralph/ this user cannot write, as the run would refuse it', async () => {
    const p = project(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n` }), true);
    const f = fake();
    const env = { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key' };
    const writable = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });
    expect(line(writable.stdout, 'project files')).toMatch(/^\[OK\]/);

    const namespace = probeMountNamespace();
    let r: { code: number | null; stdout: string };
    if ('prefix' in namespace) {
      // A read-only bind mount of .ralph/, which stops root too (EROFS).
      const [unshare, ...prefix] = namespace.prefix;
      const script = 'set -e; mount --bind "$1" "$1"; mount -o remount,bind,ro "$1"; shift; "$@"';
      r = await runCommand(unshare!, [...prefix, 'sh', '-c', script, 'sh', p.path('.ralph'), process.execPath, binPath('ralph'), '--doctor'], {
        cwd: p.dir,
        env: { ...env, NO_COLOR: '1' },
      });
    } else {
      // No namespace: file modes, for a user they apply to.
      const user = IS_ROOT ? unprivilegedUser() : undefined;
      if (user) for (const dir of [p.dir, f.root]) chownTree(dir, user.uid, user.gid);
      chmodSync(p.path('.ralph'), 0o555);
      try {
        r = await runCli('ralph', ['--doctor'], { cwd: p.dir, env, ...(user ?? {}) });
      } finally {
        chmodSync(p.path('.ralph'), 0o755);
      }
    }
    expect(line(r.stdout, 'project files')).toMatch(
      /^\[FAIL\] project files: \.ralph\/ cannot be written \((read-only file system|permission denied)\): ralph would refuse to start — fix: make \.ralph\/ writable/,
    );
    expect(r.stdout).not.toMatch(/\bReady\b/);
    expect(r.code).toBe(1);
  });

  it('fails for --github-issue or GITHUB_ISSUE without gh on PATH, naming where the issue came from and how to install gh', async () => {
    const p = project(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n` }), true);
    const f = fake();
    const noGh = (f.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => dir && !existsSync(join(dir, 'gh')))
      .join(delimiter);
    const env = { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key', PATH: noGh };
    const bare = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });
    expect(bare.stdout).not.toContain('GitHub CLI');
    expect(bare.code).toBe(0);

    const flag = await runCli('ralph', ['--doctor', '--github-issue', '12'], { cwd: p.dir, env });
    expect(line(flag.stdout, 'GitHub CLI')).toBe(
      '[FAIL] GitHub CLI: gh is not installed: --github-issue #12 could not read, comment on or close the issue — fix: install it from https://cli.github.com/ and run: gh auth login',
    );
    expect(flag.stdout).not.toMatch(/\bReady\b/);
    expect(flag.code).toBe(1);

    const configured = project(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nGITHUB_ISSUE=owner/repo#7\n` }), true);
    const rc = await runCli('ralph', ['--doctor'], { cwd: configured.dir, env });
    expect(line(rc.stdout, 'GitHub CLI')).toMatch(/^\[FAIL\] GitHub CLI: gh is not installed: GITHUB_ISSUE \(\.ralphrc.*\) owner\/repo#7 /);
    expect(rc.code).toBe(1);

    // With gh there, the same check passes.
    const clis = withFakeTaskClis({ gh: { issues: [] } });
    cleanups.push(() => clis.cleanup());
    const withGh = await runCli('ralph', ['--doctor', '--github-issue', '12'], { cwd: p.dir, env: { ...env, PATH: [clis.binDir, noGh].join(delimiter) } });
    expect(line(withGh.stdout, 'GitHub CLI')).toMatch(/^\[OK\] +GitHub CLI: gh found, for issue #12 \(--github-issue\)/);
    expect(withGh.code).toBe(0);
  });

  it('outside a git repository: --doctor warns, and ralph and ralph-enable-ci say the same thing instead of nothing', async () => {
    const p = project(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n`, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] one\n' }), false);
    const f = withFakeClaude({ calls: [{ resultText: 'done', tickFixPlan: 'all', writeFiles: { 'a.txt': 'a\n' } }] });
    cleanups.push(() => f.cleanup());
    // HOME (and so any global git config) is the fake's: no repository above the project either.
    const env = { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key', GIT_CEILING_DIRECTORIES: tmpdir() };
    const words = 'not a git repository: ralph still runs, but it reads every file to see progress (no .gitignore), the agent cannot commit';

    const doctor = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });
    expect(line(doctor.stdout, 'git')).toContain(`[WARN] git: `);
    expect(line(doctor.stdout, 'git')).toContain(words);
    expect(line(doctor.stdout, 'git')).toContain('— fix: git init');

    const run = await runCli('ralph', ['--max-loops', '2'], { cwd: p.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`\\[WARN\\] This folder is ${words.replace(/[().]/g, '\\$&')}.*\\(fix: git init\\)`));

    const other = mkdtempSync(join(tmpdir(), 'ralph-nogit-'));
    cleanups.push(() => rmSync(other, { recursive: true, force: true }));
    const ci = await runCli('ralph-enable-ci', ['--from', 'none'], { cwd: other, env });
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stderr).toContain(`Warning: this folder is ${words}`);
    const ciJson = await runCli('ralph-enable-ci', ['--json', '--force', '--from', 'none'], { cwd: other, env });
    expect(JSON.parse(ciJson.stdout)).toMatchObject({ success: true });
    expect(ciJson.stderr).toContain(words);
  });
});
