// `ralph-fleet doctor` (and the end of `ralph-fleet init`): everything a first job needs, in the
// order a user fixes it, each failing check with the command that fixes it. gh installed and
// logged in; the repository on GitHub with write access; the workflow on the default branch
// (GitHub runs no other); the labels the fleet uses (created only with the user's consent); the
// agent's secret; Actions allowed to open pull requests (or RALPH_GITHUB_TOKEN set).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FleetAgent } from './fleet-agents.js';
import { DONE_LABEL, HELP_LABEL } from './fleet-labels.js';
import type { GhCli } from './job-gh.js';
import { GH_TOOL } from '../tasks/gh-cli.js';

export interface FleetCheck {
  name: string;
  ok: boolean;
  /** What was found. */
  detail: string;
  /** The command (or setting) that fixes a failed check. */
  fix?: string;
}

export interface FleetDoctorOptions {
  agent: FleetAgent;
  label: string;
  /** The workflow's file name under .github/workflows/. */
  workflow: string;
  cli: GhCli;
  /** Asks whether to create the missing labels (false when nobody can answer). */
  confirm(question: string): Promise<boolean>;
}

/** The labels a fleet uses: the one that starts a job, and the two a job ends with. */
export function fleetLabels(label: string): Array<{ name: string; color: string; description: string }> {
  return [
    { name: label, color: '1d76db', description: 'ralph works on this issue' },
    { name: DONE_LABEL, color: '0e8a16', description: "ralph's run is done" },
    { name: HELP_LABEL, color: 'd93f0b', description: 'ralph stopped and needs a person' },
  ];
}

export async function runFleetDoctor(options: FleetDoctorOptions): Promise<FleetCheck[]> {
  const checks: FleetCheck[] = [];
  const gh = (args: string[]) => options.cli.runner.run('gh', args, { cwd: options.cli.cwd, env: options.cli.env, timeoutMs: 60_000 });

  const version = await gh(['--version']);
  if (version.spawnError || version.code !== 0) {
    checks.push({ name: 'gh installed', ok: false, detail: 'the GitHub CLI (gh) is not on PATH', fix: GH_TOOL.installHint });
    return checks;
  }
  checks.push({ name: 'gh installed', ok: true, detail: version.stdout.split('\n')[0]!.trim() });
  const auth = await gh(['auth', 'status']);
  if (auth.code !== 0) {
    checks.push({ name: 'gh logged in', ok: false, detail: 'gh is not logged in to GitHub', fix: 'gh auth login' });
    return checks;
  }
  checks.push({ name: 'gh logged in', ok: true, detail: 'logged in' });

  const repo = await gh(['repo', 'view', '--json', 'nameWithOwner,viewerPermission,defaultBranchRef']);
  const parsed =
    repo.code === 0
      ? (parseJson(repo.stdout) as { nameWithOwner?: string; viewerPermission?: string; defaultBranchRef?: { name?: string } } | undefined)
      : undefined;
  if (!parsed?.nameWithOwner) {
    checks.push({
      name: 'repository on GitHub',
      ok: false,
      detail: 'gh finds no GitHub repository here',
      fix: 'gh repo create --source . --push (or git remote add origin <url> && git push -u origin HEAD)',
    });
    return checks;
  }
  const name = parsed.nameWithOwner;
  const defaultBranch = parsed.defaultBranchRef?.name || 'main';
  const writer = ['ADMIN', 'MAINTAIN', 'WRITE'].includes(parsed.viewerPermission ?? '');
  checks.push(
    writer
      ? { name: 'write access', ok: true, detail: `${parsed.viewerPermission!.toLowerCase()} on ${name}` }
      : {
          name: 'write access',
          ok: false,
          detail: `your access to ${name} is '${(parsed.viewerPermission ?? 'none').toLowerCase()}'`,
          fix: `ask an admin of ${name} for write access`,
        },
  );

  const path = `.github/workflows/${options.workflow}`;
  // The workflow, and the package it installs ralph from (named in the local copy init wrote).
  const files = [path, ...packageOf(options.cli.cwd, path)];
  const missing: string[] = [];
  for (const file of files) {
    const onDefault = await gh(['api', `repos/{owner}/{repo}/contents/${file}?ref=${encodeURIComponent(defaultBranch)}`, '--jq', '.path']);
    if (onDefault.code !== 0) missing.push(file);
  }
  checks.push(
    missing.length === 0
      ? { name: `workflow on ${defaultBranch}`, ok: true, detail: `${files.join(' and ')} ${files.length > 1 ? 'are' : 'is'} on ${defaultBranch}` }
      : {
          name: `workflow on ${defaultBranch}`,
          ok: false,
          detail: `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not on ${defaultBranch} (GitHub runs only the workflows of the default branch)`,
          fix: `git add ${path} .github/ralph && git commit -m "Add the ralph fleet" && git push origin HEAD:${defaultBranch}`,
        },
  );

  checks.push(await checkLabels(options, gh));

  const secrets = await gh(['secret', 'list', '--json', 'name']);
  const secretNames = secrets.code === 0 ? ((parseJson(secrets.stdout) as Array<{ name?: string }> | undefined) ?? []).map((s) => s.name) : [];
  const present = options.agent.secrets.filter((secret) => secretNames.includes(secret));
  checks.push(
    secrets.code !== 0
      ? {
          name: 'agent secret',
          ok: false,
          detail: `could not list the secrets (${firstLine(secrets.stderr)})`,
          fix: `gh secret list (needs admin access), then ${options.agent.secretHint}`,
        }
      : present.length > 0
        ? { name: 'agent secret', ok: true, detail: `${present.join(', ')} set` }
        : {
            name: 'agent secret',
            ok: false,
            detail: `none of ${options.agent.secrets.join(', ')} is set`,
            fix: `gh secret set ${options.agent.secrets[0]!}   (${options.agent.secretHint})`,
          },
  );

  if (secretNames.includes('RALPH_GITHUB_TOKEN')) {
    checks.push({ name: 'pull requests', ok: true, detail: 'opened with RALPH_GITHUB_TOKEN' });
  } else {
    const settings = await gh(['api', 'repos/{owner}/{repo}/actions/permissions/workflow']);
    const allowed =
      settings.code === 0 &&
      (parseJson(settings.stdout) as { can_approve_pull_request_reviews?: boolean } | undefined)?.can_approve_pull_request_reviews === true;
    checks.push(
      allowed
        ? { name: 'pull requests', ok: true, detail: 'Actions may create pull requests' }
        : {
            name: 'pull requests',
            ok: false,
            detail: 'Actions may not create pull requests in this repository (off on new repositories)',
            fix: 'gh api --method PUT repos/{owner}/{repo}/actions/permissions/workflow -F can_approve_pull_request_reviews=true   (Settings → Actions → General → "Allow GitHub Actions to create and approve pull requests"), or set the secret RALPH_GITHUB_TOKEN',
          },
    );
  }
  return checks;
}

async function checkLabels(options: FleetDoctorOptions, gh: (args: string[]) => ReturnType<GhCli['runner']['run']>): Promise<FleetCheck> {
  const listed = await gh(['label', 'list', '--limit', '1000', '--json', 'name']);
  if (listed.code !== 0) return { name: 'labels', ok: false, detail: `could not list the labels (${firstLine(listed.stderr)})`, fix: 'gh label list' };
  const have = new Set(((parseJson(listed.stdout) as Array<{ name?: string }> | undefined) ?? []).map((l) => l.name));
  const missing = fleetLabels(options.label).filter((label) => !have.has(label.name));
  if (missing.length === 0)
    return {
      name: 'labels',
      ok: true,
      detail: fleetLabels(options.label)
        .map((l) => l.name)
        .join(', '),
    };
  const names = missing.map((l) => l.name).join(', ');
  const create = (l: { name: string; color: string; description: string }) => ['label', 'create', l.name, '--color', l.color, '--description', l.description];
  if (await options.confirm(`Create the labels ${names} in the repository?`)) {
    for (const label of missing) {
      const made = await gh(create(label));
      if (made.code !== 0)
        return { name: 'labels', ok: false, detail: `could not create ${label.name} (${firstLine(made.stderr)})`, fix: quoteArgv(['gh', ...create(label)]) };
    }
    return { name: 'labels', ok: true, detail: `created ${names}` };
  }
  return {
    name: 'labels',
    ok: false,
    detail: `missing: ${names}`,
    fix: `${missing.map((l) => quoteArgv(['gh', ...create(l)])).join(' && ')}   (or ralph-fleet doctor --yes)`,
  };
}

/** The checks as lines: `ok`/`FAIL`, what was found, and the fix under a failed one. */
export function formatDoctor(checks: readonly FleetCheck[]): string {
  const lines: string[] = [];
  for (const check of checks) {
    lines.push(`  ${check.ok ? 'ok  ' : 'FAIL'}  ${check.name}: ${check.detail}`);
    if (!check.ok && check.fix) lines.push(`        fix: ${check.fix}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The package path the local workflow checks (`echo "<sha256>  <path>" | sha256sum`), if any. */
function packageOf(projectDir: string, workflowPath: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(projectDir, workflowPath), 'utf8');
  } catch {
    return [];
  }
  const match = /echo "[0-9a-f]{64} {2}(\.github\/ralph\/[\w.@+-]+\.tgz)" \| sha256sum/.exec(text);
  return match ? [match[1]!] : [];
}

function quoteArgv(argv: string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find(Boolean) ?? 'no message'
  );
}
