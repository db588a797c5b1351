// `ralph-fleet init` as a user runs it, in a clone of a Ralph project with the fleet's fake gh
// and a fake npm whose `view` stands for the registry (its `pack` is npm's own): the workflow
// and ralph's package written, the package installable for real without the registry and
// matching the sha256 in the workflow, the steps still to take in order (the doctor's checks),
// labels created only with consent; outside a git repository or a Ralph project, or with the
// registry out of reach, nothing is written. An existing file is never replaced without --force.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readPackageVersion } from '../../../lib/cli/package-info.js';
import { FLEET_AGENTS } from '../../../lib/fleet/fleet-agents.js';
import { FAKE_AGENT_INTEGRITY, fleetInitEnv, withFleetRepo, type FleetRepo } from '../../helpers/fleet-repo.js';
import { runCli } from '../../helpers/run-cli.js';
import { tmpProject } from '../../helpers/tmp-project.js';

const VERSION = readPackageVersion();
const TARBALL = `.github/ralph/ralph-claude-code-${VERSION}.tgz`;
let repo: FleetRepo | undefined;
const scratch: string[] = [];
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setUp(gh: Record<string, unknown> = {}): { dir: string; env: NodeJS.ProcessEnv; r: FleetRepo } {
  repo = withFleetRepo({ gh });
  return { r: repo, dir: repo.cloneJob(), env: fleetInitEnv(repo) };
}

describe('ralph-fleet init', () => {
  it("adds ralph's package, which installs for real without the registry and matches the sha256 the workflow checks", async () => {
    const { dir, env } = setUp();
    const run = await runCli('ralph-fleet', ['init'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Wrote .github/workflows/ralph.yml and ${TARBALL} (ralph ${VERSION}, sha256 `);
    const text = readFileSync(join(dir, '.github/workflows/ralph.yml'), 'utf8');
    const sha256 = createHash('sha256')
      .update(readFileSync(join(dir, TARBALL)))
      .digest('hex');
    expect(text).toContain(`echo "${sha256}  ${TARBALL}" | sha256sum --check --strict\n`);
    // The agent CLI only at the integrity the registry gave init; never an unpinned or unknown name.
    const claude = FLEET_AGENTS.find((agent) => agent.name === 'claude')!.npmPackage;
    expect(text).toContain(`if [ "$(npm view ${claude} dist.integrity)" != "${FAKE_AGENT_INTEGRITY}" ]; then`);
    expect(text).not.toContain('ralph-claude-code@');
    expect(text).toContain('--workflow ralph.yml');
    // The step's own check passes on the file init wrote.
    execFileSync('bash', ['--norc', '-eo', 'pipefail', '-c', `echo "${sha256}  ${TARBALL}" | sha256sum --check --strict`], { cwd: dir });

    // The install step for real: into a scratch prefix, with an empty cache and --offline (the
    // dependencies are inside the package), then the installed commands run.
    const prefix = mkdtempSync(join(tmpdir(), 'ralph-fleet-install-'));
    scratch.push(prefix);
    execFileSync(
      'npm',
      ['install', '--global', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix, '--cache', join(prefix, 'cache'), `./${TARBALL}`],
      { cwd: dir, env: { ...process.env, npm_config_update_notifier: 'false' }, stdio: 'pipe' },
    );
    for (const bin of ['ralph', 'ralph-fleet']) {
      expect(execFileSync(join(prefix, 'bin', bin), ['--version'], { encoding: 'utf8' }).trim()).toBe(`${bin} ${VERSION}`);
    }
  }, 240_000);

  it('ends with the steps still to take, in order, each with its command; the labels only with consent', async () => {
    const { dir, env, r } = setUp({ labels: ['bug'], secrets: [] });
    const run = await runCli('ralph-fleet', ['init', '--agent', 'codex'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const next = run.stdout.slice(run.stdout.indexOf('Next:'));
    expect(next).toBe(
      [
        'Next:',
        `  1. workflow on main: .github/workflows/ralph.yml and ${TARBALL} are not on main (GitHub runs only the workflows of the default branch)`,
        '     git add .github/workflows/ralph.yml .github/ralph && git commit -m "Add the ralph fleet" && git push origin HEAD:main',
        '  2. labels: missing: ralph, ralph-done, ralph-needs-help',
        "     gh label create ralph --color 1d76db --description 'ralph works on this issue' && gh label create ralph-done --color 0e8a16 --description 'ralph'\\''s run is done' && gh label create ralph-needs-help --color d93f0b --description 'ralph stopped and needs a person'   (or ralph-fleet doctor --yes)",
        '  3. agent secret: none of OPENAI_API_KEY is set',
        '     gh secret set OPENAI_API_KEY   (add the repository secret OPENAI_API_KEY)',
        '  4. pull requests: Actions may not create pull requests in this repository (off on new repositories)',
        '     gh api --method PUT repos/{owner}/{repo}/actions/permissions/workflow -F can_approve_pull_request_reviews=true   (Settings → Actions → General → "Allow GitHub Actions to create and approve pull requests"), or set the secret RALPH_GITHUB_TOKEN',
        '  5. label an issue "ralph", or run ralph-fleet start N',
        'ralph-fleet doctor checks it all again; see docs/fleet.md.',
        '',
      ].join('\n'),
    );
    // Nobody to ask (no terminal, no --yes): no label was created.
    expect(r.ghCalls().some((call) => call.argv[0] === 'label' && call.argv[1] === 'create')).toBe(false);

    const yes = await runCli('ralph-fleet', ['init', '--force', '--yes'], { cwd: dir, env });
    expect(yes.code, yes.stderr).toBe(0);
    expect(
      r
        .ghCalls()
        .filter((call) => call.argv[1] === 'create')
        .map((call) => call.argv[2]),
    ).toEqual(['ralph', 'ralph-done', 'ralph-needs-help']);
    expect(yes.stdout).not.toContain('labels:');
  }, 120_000);

  it('refuses outside a git repository and outside a Ralph project, naming the fix, and writes nothing', async () => {
    const { env } = setUp();
    const plain = tmpProject({ '.ralph/PROMPT.md': 'x\n' });
    try {
      const run = await runCli('ralph-fleet', ['init'], { cwd: plain.dir, env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('this directory is not in a git repository');
      expect(run.stderr).toContain('git init');
      expect(existsSync(plain.path('.github'))).toBe(false);
    } finally {
      plain.cleanup();
    }
    const notRalph = tmpProject({ 'README.md': 'x\n' }, { git: true });
    try {
      const run = await runCli('ralph-fleet', ['init'], { cwd: notRalph.dir, env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('this repository is not a Ralph project (no .ralph/ folder)');
      expect(run.stderr).toContain('run ralph-enable here');
      expect(existsSync(notRalph.path('.github'))).toBe(false);
    } finally {
      notRalph.cleanup();
    }
  }, 120_000);

  it("refuses when the registry cannot give the agent CLI's integrity, and writes nothing", async () => {
    const { dir, r } = setUp();
    const run = await runCli('ralph-fleet', ['init'], { cwd: dir, env: fleetInitEnv(r, { FAKE_NPM_INTEGRITY: '' }) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Could not read the integrity of @anthropic-ai/claude-code@');
    expect(run.stderr).toContain('npm error code ENOTFOUND');
    expect(existsSync(join(dir, '.github'))).toBe(false);
  }, 120_000);

  it('leaves an existing file alone without --force, and keeps it as a backup with --force', async () => {
    const { dir, env } = setUp();
    execFileSync('mkdir', ['-p', join(dir, '.github/workflows')]);
    writeFileSync(join(dir, '.github/workflows/ralph.yml'), 'mine\n');
    const refused = await runCli('ralph-fleet', ['init'], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('.github/workflows/ralph.yml already exists');
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(join(dir, '.github/workflows/ralph.yml'), 'utf8')).toBe('mine\n');

    const forced = await runCli('ralph-fleet', ['init', '--force', '--agent', 'codex', '--output', '.github/workflows/ralph.yml'], { cwd: dir, env });
    expect(forced.code, forced.stderr).toBe(0);
    const backups = readdirSync(join(dir, '.github/workflows')).filter((name) => name.startsWith('ralph.yml.bak-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, '.github/workflows', backups[0]!), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(dir, '.github/workflows/ralph.yml'), 'utf8')).toContain('OPENAI_API_KEY');
  }, 120_000);

  it('writes another file with --output and dispatches that one for continuations', async () => {
    const { dir, env } = setUp();
    const run = await runCli('ralph-fleet', ['init', '--output', '.github/workflows/agents.yml', '--no-sandbox'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, '.github/workflows/agents.yml'), 'utf8')).toContain('--workflow agents.yml --no-sandbox');
    expect(existsSync(join(dir, '.github/workflows/ralph.yml'))).toBe(false);
  }, 120_000);

  it('names the flag of a bad option and writes nothing', async () => {
    const { dir, env } = setUp();
    const run = await runCli('ralph-fleet', ['init', '--timeout-minutes', '600'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--timeout-minutes: 600');
    expect(existsSync(join(dir, '.github'))).toBe(false);
  }, 60_000);
});
