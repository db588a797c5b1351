// `ralph-fleet doctor` through the fleet's fake gh: every check a first job needs passes on a
// ready repository; each that fails names what it found and the command that fixes it; without
// gh, or logged out, it and every other fleet command say so, with the fix.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { withFleetRepo, type FleetRepo } from '../../helpers/fleet-repo.js';
import { binPath, runCli } from '../../helpers/run-cli.js';

const DRIVER = fileURLToPath(new URL('../bootstrap/pty-driver.py', import.meta.url));
/** The test's latest repo; every repo a test made is removed after it. */
let repo: FleetRepo | undefined;
const made: FleetRepo[] = [];

/** ralph-fleet on a terminal, answering its questions (the wizard tests' driver). */
function runInPty(args: string[], cwd: string, env: NodeJS.ProcessEnv, steps: Array<[string, string]>): { code: number; output: string } {
  const spec = {
    argv: [process.execPath, binPath('ralph-fleet'), ...args],
    cwd,
    env: { ...process.env, ...env, NO_COLOR: '1', TERM: 'dumb' },
    steps,
    timeout: 20,
  };
  return JSON.parse(execFileSync('python3', [DRIVER, JSON.stringify(spec)], { encoding: 'utf8', timeout: 60_000 })) as { code: number; output: string };
}
afterEach(() => {
  for (const each of made.splice(0)) each.cleanup();
});

const READY = {
  files: ['main:.github/workflows/ralph.yml'],
  labels: ['ralph', 'ralph-done', 'ralph-needs-help', 'bug'],
  secrets: ['ANTHROPIC_API_KEY'],
  actionsCreatePullRequests: true,
};

function setUp(gh: Record<string, unknown>): { dir: string; env: NodeJS.ProcessEnv } {
  repo = withFleetRepo({ gh });
  made.push(repo);
  return { dir: repo.cloneJob(), env: { ...repo.ghEnv, PATH: [repo.ghBinDir, process.env.PATH].join(delimiter) } };
}

describe('ralph-fleet doctor', () => {
  it('a ready repository: every check passes', async () => {
    const { dir, env } = setUp(READY);
    const run = await runCli('ralph-fleet', ['doctor'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      [
        '  ok    gh installed: gh version 2.99.0 (fake)',
        '  ok    gh logged in: logged in',
        '  ok    write access: admin on fake/repo',
        '  ok    workflow on main: .github/workflows/ralph.yml is on main',
        '  ok    labels: ralph, ralph-done, ralph-needs-help',
        '  ok    agent secret: ANTHROPIC_API_KEY set',
        '  ok    pull requests: Actions may create pull requests',
        'Ready: label an issue, or run ralph-fleet start N',
        '',
      ].join('\n'),
    );
  }, 60_000);

  it('each failing check with the command that fixes it; the labels created with --yes', async () => {
    const { dir, env } = setUp({ viewerPermission: 'TRIAGE', defaultBranch: 'trunk', labels: ['ralph'], secrets: ['OPENAI_API_KEY'] });
    const run = await runCli('ralph-fleet', ['doctor', '--workflow', 'agents.yml'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("  FAIL  write access: your access to fake/repo is 'triage'\n        fix: ask an admin of fake/repo for write access\n");
    expect(run.stdout).toContain(
      '  FAIL  workflow on trunk: .github/workflows/agents.yml is not on trunk (GitHub runs only the workflows of the default branch)\n        fix: git add .github/workflows/agents.yml .github/ralph && git commit -m "Add the ralph fleet" && git push origin HEAD:trunk\n',
    );
    expect(run.stdout).toContain('  FAIL  labels: missing: ralph-done, ralph-needs-help\n');
    expect(run.stdout).toContain(
      '  FAIL  agent secret: none of ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN is set\n        fix: gh secret set ANTHROPIC_API_KEY   (add the repository secret ANTHROPIC_API_KEY, or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)\n',
    );
    expect(run.stdout).toContain(
      '  FAIL  pull requests: Actions may not create pull requests in this repository (off on new repositories)\n        fix: gh api --method PUT repos/{owner}/{repo}/actions/permissions/workflow -F can_approve_pull_request_reviews=true',
    );
    expect(run.stdout).toContain('5 checks failed: run the fix under each, then ralph-fleet doctor again\n');
    expect(repo!.ghCalls().some((call) => call.argv[0] === 'label' && call.argv[1] === 'create')).toBe(false);

    const yes = await runCli('ralph-fleet', ['doctor', '--yes', '--agent', 'codex'], { cwd: dir, env });
    expect(yes.stdout).toContain('  ok    labels: created ralph-done, ralph-needs-help\n');
    expect(yes.stdout).toContain('  ok    agent secret: OPENAI_API_KEY set\n');
    expect(
      repo!
        .ghCalls()
        .filter((call) => call.argv[1] === 'create')
        .map((call) => call.argv.slice(0, 3).join(' ')),
    ).toEqual(['label create ralph-done', 'label create ralph-needs-help']);
  }, 60_000);

  it('on a terminal it asks before creating the labels: yes creates them, no leaves them', () => {
    for (const [answer, created] of [
      ['n', []],
      ['y', ['label create ralph-done', 'label create ralph-needs-help']],
    ] as const) {
      const { dir, env } = setUp({ ...READY, labels: ['ralph'] });
      const result = runInPty(['doctor'], dir, env, [['Create the labels ralph-done, ralph-needs-help in the repository? [Y/n] ', answer]]);
      expect(result.output).toContain(
        created.length > 0 ? 'ok    labels: created ralph-done, ralph-needs-help' : 'FAIL  labels: missing: ralph-done, ralph-needs-help',
      );
      expect(result.code).toBe(created.length > 0 ? 0 : 1);
      expect(
        repo!
          .ghCalls()
          .filter((call) => call.argv[1] === 'create')
          .map((call) => call.argv.slice(0, 3).join(' ')),
      ).toEqual(created);
      repo!.cleanup();
    }
  }, 120_000);

  it('the package the workflow installs must be on the default branch too', async () => {
    const { dir, env } = setUp(READY);
    mkdirSync(join(dir, '.github', 'workflows'), { recursive: true });
    writeFileSync(
      join(dir, '.github', 'workflows', 'ralph.yml'),
      `        run: |\n          echo "${'a'.repeat(64)}  .github/ralph/ralph-claude-code-9.9.9.tgz" | sha256sum --check --strict\n`,
    );
    const run = await runCli('ralph-fleet', ['doctor'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '  FAIL  workflow on main: .github/ralph/ralph-claude-code-9.9.9.tgz is not on main (GitHub runs only the workflows of the default branch)\n        fix: git add .github/workflows/ralph.yml .github/ralph && git commit -m "Add the ralph fleet" && git push origin HEAD:main\n',
    );
    const pushed = setUp({ ...READY, files: ['main:.github/workflows/ralph.yml', 'main:.github/ralph/ralph-claude-code-9.9.9.tgz'] });
    mkdirSync(join(pushed.dir, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(pushed.dir, '.github', 'workflows', 'ralph.yml'), readFileSync(join(dir, '.github', 'workflows', 'ralph.yml')));
    const ok = await runCli('ralph-fleet', ['doctor'], { cwd: pushed.dir, env: pushed.env });
    expect(ok.stdout).toContain('  ok    workflow on main: .github/workflows/ralph.yml and .github/ralph/ralph-claude-code-9.9.9.tgz are on main\n');
  }, 60_000);

  it('RALPH_GITHUB_TOKEN set: pull requests do not need the Actions setting', async () => {
    const { dir, env } = setUp({ ...READY, secrets: ['ANTHROPIC_API_KEY', 'RALPH_GITHUB_TOKEN'], actionsCreatePullRequests: false });
    const run = await runCli('ralph-fleet', ['doctor'], { cwd: dir, env });
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('  ok    pull requests: opened with RALPH_GITHUB_TOKEN\n');
  }, 60_000);
});

describe('ralph-fleet without gh, or with gh logged out', () => {
  const commands = [['doctor'], ['status'], ['start', '3'], ['stop', '3'], ['logs', '3']];

  it.each(commands)(
    '%s: names the missing gh and how to install it',
    async (...argv) => {
      const { dir } = setUp({});
      const empty = join(repo!.root, 'empty-bin');
      mkdirSync(empty);
      const run = await runCli('ralph-fleet', argv, { cwd: dir, env: { PATH: empty } });
      expect(run.code).toBe(1);
      const text = run.stdout + run.stderr;
      expect(text).toContain(
        argv[0] === 'doctor'
          ? 'FAIL  gh installed: the GitHub CLI (gh) is not on PATH'
          : `ralph-fleet ${argv[0]} works through the GitHub CLI, which is not installed (gh is not on PATH)`,
      );
      expect(text).toContain('install it from https://cli.github.com/ and run: gh auth login');
      expect(text).not.toContain('--workflow');
      expect(text).not.toContain('check the issue number');
    },
    60_000,
  );

  it.each(commands)(
    '%s: names the login when gh is logged out',
    async (...argv) => {
      const { dir, env } = setUp({ authenticated: false });
      const run = await runCli('ralph-fleet', argv, { cwd: dir, env });
      expect(run.code).toBe(1);
      const text = run.stdout + run.stderr;
      expect(text).toContain(
        argv[0] === 'doctor'
          ? 'FAIL  gh logged in: gh is not logged in to GitHub\n        fix: gh auth login'
          : `ralph-fleet ${argv[0]} works through the GitHub CLI, which is not logged in`,
      );
      expect(text).toContain('gh auth login');
      expect(text).not.toContain('--workflow');
    },
    60_000,
  );
});
