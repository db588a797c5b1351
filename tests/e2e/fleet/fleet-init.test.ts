// `ralph-fleet init` as a user runs it: the workflow written where asked, never over an existing
// file without --force, which keeps the old one beside it first; a bad option named.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readPackageVersion } from '../../../lib/cli/package-info.js';
import { runCli } from '../../helpers/run-cli.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

describe('ralph-fleet init', () => {
  it('writes .github/workflows/ralph.yml with ralph pinned to this version', async () => {
    project = tmpProject({});
    const run = await runCli('ralph-fleet', ['init'], { cwd: project.dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Wrote .github/workflows/ralph.yml\nNext:\n  1. commit .github/workflows/ralph.yml\n');
    expect(run.stdout).toContain('CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`');
    const text = readFileSync(project.path('.github/workflows/ralph.yml'), 'utf8');
    expect(text).toContain(`npm install -g ralph-claude-code@${readPackageVersion()} `);
    expect(text).toContain('--workflow ralph.yml');
  }, 60_000);

  it('leaves an existing file alone without --force, and keeps it as a backup with --force', async () => {
    project = tmpProject({ '.github/workflows/ralph.yml': 'mine\n' });
    const refused = await runCli('ralph-fleet', ['init'], { cwd: project.dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('.github/workflows/ralph.yml already exists');
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(project.path('.github/workflows/ralph.yml'), 'utf8')).toBe('mine\n');

    const forced = await runCli('ralph-fleet', ['init', '--force', '--agent', 'codex'], { cwd: project.dir });
    expect(forced.code, forced.stderr).toBe(0);
    const backups = readdirSync(project.path('.github/workflows')).filter((name) => name.startsWith('ralph.yml.bak-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(project.path('.github/workflows'), backups[0]!), 'utf8')).toBe('mine\n');
    expect(readFileSync(project.path('.github/workflows/ralph.yml'), 'utf8')).toContain('OPENAI_API_KEY');
    // The next steps name this agent's secret.
    expect(forced.stdout).toContain('2. add the repository secret OPENAI_API_KEY\n     e.g. gh secret set OPENAI_API_KEY\n');
    expect(forced.stdout).toContain('3. label an issue "ralph", or run ralph-fleet start N');
  }, 60_000);

  it('writes another file with --output and dispatches that one for continuations', async () => {
    project = tmpProject({});
    const run = await runCli('ralph-fleet', ['init', '--output', '.github/workflows/agents.yml', '--no-sandbox'], { cwd: project.dir });
    expect(run.code, run.stderr).toBe(0);
    const text = readFileSync(project.path('.github/workflows/agents.yml'), 'utf8');
    expect(text).toContain('--workflow agents.yml --no-sandbox');
    expect(existsSync(project.path('.github/workflows/ralph.yml'))).toBe(false);
  }, 60_000);

  it('names the flag of a bad option and writes nothing', async () => {
    project = tmpProject({});
    const run = await runCli('ralph-fleet', ['init', '--timeout-minutes', '600'], { cwd: project.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--timeout-minutes: 600');
    expect(existsSync(project.path('.github'))).toBe(false);
  }, 60_000);
});
