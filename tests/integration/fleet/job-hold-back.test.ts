// The fleet's hold-back against an agent that plays with git itself: what it leaves in `.git`
// (a merge or a cherry-pick half done, an annotated tag, a setting written while ralph's git
// runs) must not bring a file under .github/, a commit of its own or a ref of its own into what
// the job pushes, whatever settings the job found (matching names whatever their case, following
// tags on push). A workflow file pushed to a branch, or a tag pushed to origin, runs with the
// repository's secrets.

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitWork, pushHead, readHeldTree, type JobGit } from '../../../lib/fleet/job-git.js';
import { commitWhatIsLeft } from '../../../lib/platform/git-leftovers.js';
import { recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const env = { ...process.env, ...GIT_TEST_ENV };
const WORKFLOW = '.github/workflows/ci.yml';
const LEAK = '.github/workflows/leak.yml';
const BRANCH = 'ralph/issue-7';
let project: TmpProject | undefined;
let origin: TmpProject | undefined;
afterEach(() => {
  project?.cleanup();
  origin?.cleanup();
  resetGitBaselines();
});

interface Job {
  p: TmpProject;
  git: JobGit;
  since: string;
  heldTree: string;
}

/** A fleet job's clone once the job started (case-insensitive with `ignoreCase`): its workflows recorded before the agent runs. */
async function jobStarted({ ignoreCase = false } = {}): Promise<Job> {
  const p = tmpProject({ [WORKFLOW]: 'on: push\n', '.ralph/PROMPT.md': 'task\n', 'src/a.txt': 'a\n' }, { git: true });
  project = p;
  if (ignoreCase) p.git('config', 'core.ignoreCase', 'true');
  p.git('checkout', '-q', '-b', BRANCH);
  await recordGitBaseline(p.dir, env);
  const git: JobGit = { runner: nodeProcessRunner, cwd: p.dir, env };
  const since = p.git('rev-parse', 'HEAD').trim();
  return { p, git, since, heldTree: await readHeldTree(git, since) };
}

function write(p: TmpProject, path: string, content: string): void {
  mkdirSync(join(p.dir, path, '..'), { recursive: true });
  writeFileSync(p.path(path), content);
}

describe("the fleet's hold-back against the agent's own git", () => {
  for (const [when, start] of [
    ['turned on by the agent', false],
    ['on from the start (the user’s own)', true],
  ] as const) {
    it(`case-insensitive matching ${when}: a \`.GITHUB/workflows/\` file is not committed under .github/`, async () => {
      const job = await jobStarted({ ignoreCase: start });
      job.p.git('config', 'core.ignoreCase', 'true');
      write(job.p, '.GITHUB/workflows/leak.yml', 'on: push\njobs: { leak: { runs-on: x } }\n');
      write(job.p, 'src/a.txt', 'b\n');

      await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree });

      const tree = job.p.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n');
      expect(tree).not.toContain(LEAK);
      expect(tree).toContain(WORKFLOW);
      expect(job.p.git('show', 'HEAD:src/a.txt')).toBe('b\n');
    });
  }

  it('a case-insensitive setting the agent turned on: a path ralph leaves out is not reached through another case', async () => {
    const job = await jobStarted();
    job.p.git('config', 'core.ignoreCase', 'true');
    write(job.p, '.RALPH/notes.md', 'the agent’s notes\n');
    write(job.p, 'src/a.txt', 'b\n');

    await commitWhatIsLeft(job.git, 'work\n', ['.ralph']);

    const tree = job.p.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n');
    expect(tree).not.toContain('.ralph/notes.md');
    expect(tree).toContain('.RALPH/notes.md');
  });

  it("a branch the agent checked out: the job's commit goes on the job's branch, which HEAD names again", async () => {
    const job = await jobStarted();
    job.p.git('checkout', '-q', '-b', 'release/v2');
    write(job.p, 'src/a.txt', 'b\n');

    await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree });

    expect(job.p.git('symbolic-ref', 'HEAD').trim()).toBe(`refs/heads/${BRANCH}`);
    expect(job.p.git('show', `${BRANCH}:src/a.txt`)).toBe('b\n');
    expect(job.p.git('rev-parse', 'release/v2').trim()).toBe(job.since);
  });

  it('.github/ ignored by the agent: the work is still committed, its workflow change held back and listed', async () => {
    const job = await jobStarted();
    writeFileSync(job.p.path('.git/info/exclude'), '.github\n');
    write(job.p, WORKFLOW, 'on: push\njobs: { leak: { runs-on: x } }\n');
    write(job.p, 'src/a.txt', 'b\n');

    const done = await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree });

    expect(done).toEqual({ committed: true, heldBack: [WORKFLOW] });
    expect(job.p.git('show', `HEAD:${WORKFLOW}`)).toBe('on: push\n');
    expect(job.p.git('show', 'HEAD:src/a.txt')).toBe('b\n');
  });

  it('a new workflow the agent hid from git with an ignore rule is still listed as held back', async () => {
    const job = await jobStarted();
    writeFileSync(job.p.path('.git/info/exclude'), 'leak.yml\n');
    write(job.p, LEAK, 'on: push\n');

    const done = await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree });

    expect(done.heldBack).toEqual([LEAK]);
    expect(job.p.git('ls-tree', '-r', '--name-only', 'HEAD')).not.toContain(LEAK);
  });

  it("a merge the agent left in progress: the job's commit has the starting commit for its one parent", async () => {
    const job = await jobStarted();
    write(job.p, LEAK, 'on: push\n');
    job.p.git('add', '-A');
    job.p.git('commit', '-qm', 'agent: a workflow');
    const agents = job.p.git('rev-parse', 'HEAD').trim();
    job.p.git('reset', '-q', '--hard', job.since);
    writeFileSync(job.p.path('.git/MERGE_HEAD'), `${agents}\n`);
    write(job.p, 'src/a.txt', 'b\n');

    const done = await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree });

    expect(done.committed).toBe(true);
    expect(job.p.git('rev-list', '--parents', '-n', '1', 'HEAD').trim().split(' ').slice(1)).toEqual([job.since]);
    expect(job.p.git('show', 'HEAD:src/a.txt')).toBe('b\n');
  });

  it("a cherry-pick the agent left in progress: the job's commit is the job's identity's, not the picked commit's author's", async () => {
    const job = await jobStarted();
    const maintainer = { ...env, GIT_AUTHOR_NAME: 'A Maintainer', GIT_AUTHOR_EMAIL: 'maintainer@example.com' };
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'theirs'], { cwd: job.p.dir, env: maintainer });
    const theirs = job.p.git('rev-parse', 'HEAD').trim();
    job.p.git('reset', '-q', '--hard', job.since);
    writeFileSync(job.p.path('.git/CHERRY_PICK_HEAD'), `${theirs}\n`);
    write(job.p, 'src/a.txt', 'b\n');

    await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree });

    expect(job.p.git('log', '-1', '--format=%ae', 'HEAD').trim()).toBe(GIT_TEST_ENV.GIT_AUTHOR_EMAIL);
  });

  it("push.followTags in the user's settings: the push sends the branch alone, no annotated tag of the agent's", async () => {
    const job = await jobStarted();
    origin = tmpProject();
    origin.git('init', '-q', '--bare');
    job.p.git('remote', 'add', 'origin', origin.dir);
    job.p.git('config', 'push.followTags', 'true');
    resetGitBaselines();
    await recordGitBaseline(job.p.dir, env);
    job.p.git('tag', '-a', 'v99.0.0', '-m', 'release', job.since);
    write(job.p, 'src/a.txt', 'b\n');
    await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree });

    await pushHead(job.git, 'ralph/issue-7');

    const refs = execFileSync('git', ['--git-dir', origin.dir, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' });
    expect(refs.split('\n').filter(Boolean)).toEqual(['refs/heads/ralph/issue-7']);
  });
});
