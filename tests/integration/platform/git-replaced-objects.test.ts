// ralph's checks judge what a push sends, whatever the agent did to `.git`. The agent can make
// git read one stored commit, tree or blob as another: a replace ref (`git replace`), a graft
// (`.git/info/grafts`, other parents), a commit-graph file naming another root tree for a commit,
// or an object file rewritten with another object's bytes (git checks no object's hash when it
// reads one). A push sends the stored objects (git packs no replacement), and origin already has
// the job's starting commit, so a check made through such a plant judges other content than the
// one that leaves the machine. Here the agent changes a workflow file and makes the job's starting
// commit read as holding its own version: the fleet's commit must still hold the change back. A
// diff or a log through the gateway reads no replace ref, graft or commit-graph.

import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { commitWork, readHeldTree, type JobGit } from '../../../lib/fleet/job-git.js';
import { recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { rewriteLooseObject } from '../../helpers/object-files.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const env = { ...process.env, ...GIT_TEST_ENV };
const WORKFLOW = '.github/workflows/ci.yml';
let project: TmpProject | undefined;
afterEach(() => {
  project?.cleanup();
  resetGitBaselines();
});

interface Scene {
  p: TmpProject;
  jobGit: JobGit;
  /** The job's starting commit, its `.github/` tree, and what the job recorded of `.github/` when it started. */
  since: string;
  githubTree: string;
  heldTree: string;
  /** The agent's commit changing the workflow. */
  changed: string;
}

/** A fleet job's project after the agent changed the workflow in a commit of its own. */
async function agentChangedTheWorkflow(): Promise<Scene> {
  const p = tmpProject({ [WORKFLOW]: 'on: push\n', 'src/a.txt': 'a\n' }, { git: true });
  project = p;
  const since = p.git('rev-parse', 'HEAD').trim();
  await recordGitBaseline(p.dir, env);
  const jobGit: JobGit = { runner: nodeProcessRunner, cwd: p.dir, env };
  const heldTree = await readHeldTree(jobGit, since);
  writeFileSync(p.path(WORKFLOW), 'on: push\njobs: { leak: { runs-on: x } }\n');
  writeFileSync(p.path('src/a.txt'), 'b\n');
  p.git('commit', '-q', '-am', 'agent');
  const githubTree = p.git('rev-parse', `${since}:.github`).trim();
  return { p, jobGit, since, githubTree, heldTree, changed: p.git('rev-parse', 'HEAD').trim() };
}

/** The agent's replacement for `commit`: the same parents, with the tree of `treeOf`. */
function plantReplacement(p: TmpProject, commit: string, treeOf: string): void {
  const parents = p.git('rev-list', '--parents', '-n', '1', commit).trim().split(' ').slice(1);
  const fake = p.git('commit-tree', `${treeOf}^{tree}`, ...parents.flatMap((parent) => ['-p', parent]), '-m', 'fake').trim();
  p.git('replace', commit, fake);
}

/** A commit-graph in which `commit`'s root tree is `treeOf`'s. */
function plantCommitGraph(p: TmpProject, commit: string, treeOf: string): void {
  p.git('commit-graph', 'write', '--reachable');
  const file = p.path('.git/objects/info/commit-graph');
  const bytes = readFileSync(file);
  const tree = Buffer.from(p.git('rev-parse', `${commit}^{tree}`).trim(), 'hex');
  const at = bytes.indexOf(tree);
  if (at === -1) throw new Error('the root tree is not in the commit-graph');
  Buffer.from(p.git('rev-parse', `${treeOf}^{tree}`).trim(), 'hex').copy(bytes, at);
  chmodSync(file, 0o644);
  writeFileSync(file, bytes);
}

/** The object file of `path` in `commit` rewritten with the bytes of `path` in `other` (loose objects). */
function rewriteObject(p: TmpProject, commit: string, other: string, path: string): void {
  rewriteLooseObject(p.path('.git'), p.git('rev-parse', `${commit}:${path}`).trim(), p.git('rev-parse', `${other}:${path}`).trim());
}

const PLANTS: Record<string, (s: Scene) => void> = {
  'a replace ref': (s) => plantReplacement(s.p, s.since, s.changed),
  'a commit-graph': (s) => plantCommitGraph(s.p, s.since, s.changed),
  'an object file rewritten': (s) => rewriteObject(s.p, s.since, s.changed, '.github/workflows'),
};

const git = (p: TmpProject, ...args: string[]) => nodeProcessRunner.run('git', args, { cwd: p.dir, env });

describe("the fleet's hold-back of workflow changes", () => {
  for (const [plant, make] of Object.entries(PLANTS)) {
    it(`holds the agent's workflow back when ${plant} makes the starting commit read as holding it`, async () => {
      const s = await agentChangedTheWorkflow();
      make(s);
      // The plant is live: git without ralph reads the agent's workflow as the starting commit's.
      expect(s.p.git('diff', '--name-only', s.since, s.changed, '--', WORKFLOW)).toBe('');

      const done = await commitWork(s.jobGit, 'work\n', { since: s.since, branch: 'main', heldTree: s.heldTree, ownEntries: '' });

      expect(done.heldBack).toEqual([WORKFLOW]);
      // What the push sends: the new commit's `.github/` is the starting commit's stored tree, which origin has.
      expect(s.p.git('--no-replace-objects', 'rev-parse', 'HEAD:.github').trim()).toBe(s.githubTree);
      expect(s.p.git('--no-replace-objects', 'show', 'HEAD:src/a.txt')).toBe('b\n');
    });
  }

  it('commits the workflow change when the workflow opted in (no tree held)', async () => {
    const s = await agentChangedTheWorkflow();
    const done = await commitWork(s.jobGit, 'work\n', { since: s.since, branch: 'main', heldTree: undefined, ownEntries: '' });
    expect(done.heldBack).toEqual([]);
    expect(s.p.git('show', `HEAD:${WORKFLOW}`)).toContain('leak');
  });
});

describe('a diff or a log through the gateway', () => {
  it('compares the stored commits, whatever replace ref was planted, even one the config tells git to follow', async () => {
    const s = await agentChangedTheWorkflow();
    plantReplacement(s.p, s.changed, s.since);
    // Set in the repository's config, it outranks GIT_NO_REPLACE_OBJECTS.
    s.p.git('config', 'core.useReplaceRefs', 'true');
    const noReplace = { cwd: s.p.dir, env: { ...env, GIT_NO_REPLACE_OBJECTS: '1' }, encoding: 'utf8' as const };
    expect(execFileSync('git', ['diff', '--name-only', s.since, s.changed], noReplace)).toBe('');

    const diff = await git(s.p, 'diff', '--name-only', s.since, s.changed);
    expect(diff.stdout.split('\n').filter(Boolean)).toEqual([WORKFLOW, 'src/a.txt']);
  });

  it('reads each commit from its object, whatever commit-graph was planted', async () => {
    const s = await agentChangedTheWorkflow();
    plantCommitGraph(s.p, s.since, s.changed);
    expect(s.p.git('diff', '--name-only', s.since, s.changed)).toBe('');

    const diff = await git(s.p, 'diff', '--name-only', s.since, s.changed);
    expect(diff.stdout.split('\n').filter(Boolean)).toEqual([WORKFLOW, 'src/a.txt']);
  });

  it('follows the stored parents, whatever graft was planted', async () => {
    const s = await agentChangedTheWorkflow();
    writeFileSync(s.p.path('.git/info/grafts'), `${s.changed}\n`);
    expect(s.p.git('-c', 'advice.graftFileDeprecated=false', 'rev-list', '--count', 'HEAD').trim()).toBe('1');

    const count = await git(s.p, '-c', 'advice.graftFileDeprecated=false', 'rev-list', '--count', 'HEAD');
    expect(count.stdout.trim()).toBe('2');
  });
});
