// ralph's git reads the objects as they are stored. The agent can write `.git`: a replace ref
// (`git replace <commit> <other>`) makes every later git command read one commit, tree or blob
// as another, and `.git/info/grafts` gives a commit other parents. A push sends the stored
// objects (git packs no replacement), so a check made through a replacement judges other
// content than the one that leaves the machine. Here the agent changes a workflow file and
// replaces the job's starting commit with one holding its own version: the fleet's commit must
// still hold the workflow back, and a diff or a log through the gateway shows what is stored.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { commitWork, type JobGit } from '../../../lib/fleet/job-git.js';
import { recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const env = { ...process.env, ...GIT_TEST_ENV };
let project: TmpProject | undefined;
afterEach(() => {
  project?.cleanup();
  resetGitBaselines();
});

/** A project whose `.github/workflows/ci.yml` the agent changed in a commit of its own after `since`. */
async function agentChangedTheWorkflow(): Promise<{ p: TmpProject; since: string; changed: string }> {
  const p = tmpProject({ '.github/workflows/ci.yml': 'on: push\n', 'src/a.txt': 'a\n' }, { git: true });
  project = p;
  const since = p.git('rev-parse', 'HEAD').trim();
  await recordGitBaseline(p.dir, env);
  writeFileSync(p.path('.github/workflows/ci.yml'), 'on: push\njobs: { leak: { runs-on: x } }\n');
  writeFileSync(p.path('src/a.txt'), 'b\n');
  p.git('commit', '-q', '-am', 'agent');
  return { p, since, changed: p.git('rev-parse', 'HEAD').trim() };
}

/** The agent's replacement for `commit`: the same parents and message, with the tree of `treeOf`. */
function plantReplacement(p: TmpProject, commit: string, treeOf: string): void {
  const parents = p.git('rev-list', '--parents', '-n', '1', commit).trim().split(' ').slice(1);
  const fake = p.git('commit-tree', `${treeOf}^{tree}`, ...parents.flatMap((parent) => ['-p', parent]), '-m', 'fake').trim();
  p.git('replace', commit, fake);
}

const git = (p: TmpProject, ...args: string[]) => nodeProcessRunner.run('git', args, { cwd: p.dir, env });

describe('objects the agent replaced or grafted', () => {
  it("the fleet's commit holds back a workflow change even when the starting commit was replaced by one holding the agent's workflow", async () => {
    const { p, since, changed } = await agentChangedTheWorkflow();
    plantReplacement(p, since, changed);
    // The plant is live: git without ralph reads the replacement.
    expect(p.git('show', `${since}:.github/workflows/ci.yml`)).toContain('leak');

    const jobGit: JobGit = { runner: nodeProcessRunner, cwd: p.dir, env };
    const done = await commitWork(jobGit, 'work\n', { since, holdBackWorkflows: true });

    expect(done.heldBack).toEqual(['.github/workflows/ci.yml']);
    const committed = p.git('-c', 'core.useReplaceRefs=false', 'show', 'HEAD:.github/workflows/ci.yml');
    expect(committed).toBe('on: push\n');
    expect(p.git('--no-replace-objects', 'show', 'HEAD:src/a.txt')).toBe('b\n');
  });

  it('a diff through the gateway compares the stored commits, whatever replace ref was planted', async () => {
    const { p, since, changed } = await agentChangedTheWorkflow();
    plantReplacement(p, changed, since);
    // Set in the repository's config, it outranks GIT_NO_REPLACE_OBJECTS.
    p.git('config', 'core.useReplaceRefs', 'true');
    expect(p.git('diff', '--name-only', since, changed)).toBe('');
    expect(execFileSync('git', ['diff', '--name-only', since, changed], { cwd: p.dir, env: { ...env, GIT_NO_REPLACE_OBJECTS: '1' }, encoding: 'utf8' })).toBe(
      '',
    );

    const diff = await git(p, 'diff', '--name-only', since, changed);
    expect(diff.stdout.split('\n').filter(Boolean)).toEqual(['.github/workflows/ci.yml', 'src/a.txt']);
  });

  it('a log through the gateway follows the stored parents, whatever graft was planted', async () => {
    const { p, changed } = await agentChangedTheWorkflow();
    writeFileSync(p.path('.git/info/grafts'), `${changed}\n`);
    expect(p.git('-c', 'advice.graftFileDeprecated=false', 'rev-list', '--count', 'HEAD').trim()).toBe('1');

    const count = await git(p, '-c', 'advice.graftFileDeprecated=false', 'rev-list', '--count', 'HEAD');
    expect(count.stdout.trim()).toBe('2');
  });
});
