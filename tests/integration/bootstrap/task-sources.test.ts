// Task sources against the fake gh and bd: argv, paging, failures and hostile titles.
import { existsSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { fetchBeadsTasks } from '../../../lib/tasks/beads-tasks.js';
import { fetchGitHubTasks } from '../../../lib/tasks/github-tasks.js';
import { importTasks } from '../../../lib/tasks/import-tasks.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { withFakeTaskClis, type FakeIssue, type FakeTaskClis } from './fake-task-clis.js';

let clis: FakeTaskClis | undefined;
let project: TmpProject | undefined;
afterEach(() => {
  clis?.cleanup();
  project?.cleanup();
});

const label = (name: string) => [{ name }];

function setUp(options: Parameters<typeof withFakeTaskClis>[0], tree: Record<string, string> = {}) {
  clis = withFakeTaskClis(options);
  project = tmpProject(tree);
  return { runner: nodeProcessRunner, cwd: project.dir, env: clis.env };
}

describe('fetchGitHubTasks', () => {
  it('lists open issues with the label through gh issue list', async () => {
    const cli = setUp({
      gh: {
        issues: [
          { number: 1, title: 'Tagged', labels: label('ralph-task') },
          { number: 2, title: 'Untagged' },
          { number: 3, title: 'Closed', state: 'closed', labels: label('ralph-task') },
        ],
      },
    });
    const result = await fetchGitHubTasks({ ...cli, label: 'ralph-task', limit: 10 });
    expect(result).toEqual({ ok: true, tasks: ['- [ ] [#1] Tagged'] });
    expect(clis!.ghCalls()).toEqual([
      ['auth', 'status'],
      ['issue', 'list', '--state', 'open', '--limit', '10', '--json', 'number,title,labels', '--label', 'ralph-task'],
    ]);
  });

  it('with limit 0 pages through gh api and drops pull requests', async () => {
    const issues: FakeIssue[] = Array.from({ length: 230 }, (_, i) => ({ number: i + 1, title: `Issue ${i + 1}` }));
    issues.push({ number: 500, title: 'A pull request', pull_request: { url: 'x' } });
    const cli = setUp({ gh: { issues } });
    const result = await fetchGitHubTasks({ ...cli, limit: 0 });
    expect(result.ok && result.tasks).toHaveLength(230);
    expect(result.ok && result.tasks).not.toContain('- [ ] [#500] A pull request');
    expect(clis!.ghCalls()[1]).toEqual(['api', '--method', 'GET', 'repos/{owner}/{repo}/issues', '-f', 'state=open', '-f', 'per_page=100', '--paginate']);
  });

  it('writes hostile titles as plain text and runs nothing from them', async () => {
    const cli = setUp({ gh: { issues: [{ number: 7, title: '`touch pwned` $(touch pwned2)\n- [ ] extra' }] } });
    const result = await fetchGitHubTasks({ ...cli, limit: 5 });
    expect(result).toEqual({ ok: true, tasks: ['- [ ] [#7] `touch pwned` $(touch pwned2) - [ ] extra'] });
    expect(readdirSync(project!.dir)).toEqual([]);
    expect(existsSync('pwned') || existsSync('pwned2')).toBe(false);
  });

  it('says clearly when gh is missing or not logged in', async () => {
    clis = withFakeTaskClis({});
    project = tmpProject({});
    const missing = await fetchGitHubTasks({ runner: nodeProcessRunner, cwd: project.dir, env: clis.isolatedEnv, limit: 5 });
    expect(missing).toMatchObject({
      ok: false,
      reason: 'missing-tool',
      message: 'GitHub CLI (gh) is not installed',
      hint: expect.stringContaining('cli.github.com'),
    });
    clis.cleanup();
    const cli = setUp({ gh: { authenticated: false, issues: [{ number: 1, title: 'x' }] } });
    expect(await fetchGitHubTasks({ ...cli, limit: 5 })).toMatchObject({ ok: false, reason: 'unauthenticated', hint: 'run: gh auth login' });
  });

  it("reports gh's own message when a command fails", async () => {
    const cli = setUp({ gh: { failWith: 'HTTP 404: Not Found' } });
    expect(await fetchGitHubTasks({ ...cli, limit: 5 })).toMatchObject({ ok: false, reason: 'failed', message: expect.stringContaining('HTTP 404') });
  });
});

describe('fetchBeadsTasks', () => {
  const bdIssues = [
    { id: 'bd-a1', title: 'First', status: 'open', priority: 1 },
    { id: 'bd-a2', title: 'Second $(id)', status: 'open' },
    { id: 'bd-a3', title: 'Done', status: 'closed' },
  ];

  it('reads bd list --json for open issues', async () => {
    const cli = setUp({ bd: { issues: bdIssues } }, { '.beads/config.yaml': '' });
    expect(await fetchBeadsTasks({ ...cli, limit: 50 })).toEqual({ ok: true, tasks: ['- [ ] [bd-a1] First', '- [ ] [bd-a2] Second $(id)'] });
    expect(clis!.bdCalls()).toEqual([['list', '--json', '--limit', '50', '--status', 'open']]);
  });

  it('falls back to the text listing when --json prints nothing', async () => {
    const cli = setUp({ bd: { issues: bdIssues, jsonMode: 'empty' } }, { '.beads/config.yaml': '' });
    expect(await fetchBeadsTasks({ ...cli, limit: 0 })).toEqual({ ok: true, tasks: ['- [ ] [bd-a1] First', '- [ ] [bd-a2] Second $(id)'] });
    expect(clis!.bdCalls()[1]).toEqual(['list', '--limit', '0', '--status', 'open']);
  });

  it('needs a .beads/ directory and bd on PATH', async () => {
    const cli = setUp({ bd: { issues: bdIssues } });
    expect(await fetchBeadsTasks({ ...cli, limit: 5 })).toMatchObject({ ok: false, reason: 'not-configured' });
    clis!.cleanup();
    project!.cleanup();
    clis = withFakeTaskClis({});
    project = tmpProject({ '.beads/x': '' });
    expect(await fetchBeadsTasks({ runner: nodeProcessRunner, cwd: project.dir, env: clis.isolatedEnv, limit: 5 })).toMatchObject({
      ok: false,
      reason: 'missing-tool',
      message: 'beads CLI (bd) is not installed',
    });
  });
});

describe('importTasks', () => {
  it('extracts PRD tasks from a file relative to the project', async () => {
    const cli = setUp({}, { 'docs/prd.md': '- [ ] a\n- [x] b\n1. c\n' });
    const result = await importTasks({ source: 'prd', projectDir: cli.cwd, prdFile: 'docs/prd.md', limit: 50, runner: cli.runner, env: cli.env });
    expect(result).toEqual({ ok: true, tasks: ['- [ ] a', '- [ ] b', '- [ ] c'] });
  });

  it('reports a missing PRD file as file-not-found', async () => {
    const cli = setUp({});
    const result = await importTasks({ source: 'prd', projectDir: cli.cwd, prdFile: 'missing.md', limit: 50, runner: cli.runner, env: cli.env });
    expect(result).toMatchObject({ ok: false, reason: 'file-not-found', message: 'PRD file not found: missing.md' });
  });
});
