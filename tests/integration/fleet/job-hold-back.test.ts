// The fleet's hold-back against an agent that plays with git itself: what it leaves in `.git`
// (a merge or a cherry-pick half done, an annotated tag, a setting written while ralph's git
// runs) must not bring a file under .github/, a commit of its own or a ref of its own into what
// the job pushes, whatever settings the job found (matching names whatever their case, following
// tags on push). A workflow file pushed to a branch, or a tag pushed to origin, runs with the
// repository's secrets.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitWork, pushHead, readHeldTree, readOwnEntries, type JobGit } from '../../../lib/fleet/job-git.js';
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
  ownEntries: string;
}

/**
 * A fleet job's clone once the job started (case-insensitive with `ignoreCase`, no .github/
 * without `workflow`): its workflows recorded before the agent runs.
 */
async function jobStarted({ ignoreCase = false, workflow = true } = {}): Promise<Job> {
  const files = { '.ralph/PROMPT.md': 'task\n', 'src/a.txt': 'a\n' };
  const p = tmpProject(workflow ? { ...files, [WORKFLOW]: 'on: push\n' } : files, { git: true });
  project = p;
  if (ignoreCase) p.git('config', 'core.ignoreCase', 'true');
  p.git('checkout', '-q', '-b', BRANCH);
  await recordGitBaseline(p.dir, env);
  const git: JobGit = { runner: nodeProcessRunner, cwd: p.dir, env };
  const since = p.git('rev-parse', 'HEAD').trim();
  return { p, git, since, heldTree: await readHeldTree(git, since), ownEntries: await readOwnEntries(git) };
}

/**
 * The index's entries with the tree cache (its `TREE` extension) of another index: git's
 * write-tree takes a folder's tree from that cache, without looking at the entries, while it
 * holds it valid. Index version 2, as git writes it here.
 */
function spliceTreeCache(entriesOf: Buffer, cacheOf: Buffer): Buffer {
  const parse = (index: Buffer) => {
    const body = index.subarray(0, index.length - 20);
    let at = 12;
    for (let n = body.readUInt32BE(8); n > 0; n--) at += Math.ceil((body.indexOf(0, at + 62) - at + 1) / 8) * 8;
    return { entries: body.subarray(0, at), extension: body.subarray(at) };
  };
  const { extension } = parse(cacheOf);
  if (extension.subarray(0, 4).toString() !== 'TREE') throw new Error('no tree cache first');
  const out = Buffer.concat([parse(entriesOf).entries, extension.subarray(0, 8 + extension.readUInt32BE(4))]);
  return Buffer.concat([out, createHash('sha1').update(out).digest()]);
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

      const done = await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

      const tree = job.p.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n');
      expect(tree.filter((path) => path.toLowerCase().startsWith('.github/'))).toEqual([WORKFLOW]);
      expect(done.heldBack).toEqual(['.GITHUB/workflows/leak.yml']);
      expect(job.p.git('show', 'HEAD:src/a.txt')).toBe('b\n');
    });
  }

  it('.github/ in another case, which a case-insensitive checkout puts in .github/, is held back too; one the job started with is kept', async () => {
    const job = await jobStarted();
    job.p.git('checkout', '-q', job.since);
    write(job.p, '.GitHub/CODEOWNERS', '* @owner\n');
    job.p.git('add', '-A');
    job.p.git('commit', '-qm', 'a folder of another case');
    const since = job.p.git('rev-parse', 'HEAD').trim();
    job.p.git('checkout', '-q', '-B', BRANCH);
    const heldTree = await readHeldTree(job.git, since);
    write(job.p, '.GITHUB/workflows/leak.yml', 'on: push\n');
    write(job.p, '.GitHub/CODEOWNERS', '* @agent\n');
    write(job.p, 'src/a.txt', 'b\n');

    const done = await commitWork(job.git, 'work\n', { since, branch: BRANCH, heldTree, ownEntries: job.ownEntries });

    expect(done.heldBack).toEqual(['.GITHUB/workflows/leak.yml', '.GitHub/CODEOWNERS']);
    const tree = job.p.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n');
    expect(tree.filter((path) => path.toLowerCase().startsWith('.github/'))).toEqual(['.GitHub/CODEOWNERS', WORKFLOW]);
    expect(job.p.git('show', 'HEAD:.GitHub/CODEOWNERS')).toBe('* @owner\n');
    expect(job.p.git('show', 'HEAD:src/a.txt')).toBe('b\n');
  });

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

    await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

    expect(job.p.git('symbolic-ref', 'HEAD').trim()).toBe(`refs/heads/${BRANCH}`);
    expect(job.p.git('show', `${BRANCH}:src/a.txt`)).toBe('b\n');
    expect(job.p.git('rev-parse', 'release/v2').trim()).toBe(job.since);
  });

  it('what the agent staged under .ralph/ (its own prompt, a file of its own) is not committed: .ralph/ stays as the job found it', async () => {
    const job = await jobStarted();
    write(job.p, '.ralph/PROMPT.md', 'the agent’s prompt\n');
    write(job.p, '.ralph/notes.md', 'notes\n');
    job.p.git('add', '-f', '.ralph');
    // The file itself is put back (as ralph's guard would): only the index holds the agent's prompt.
    write(job.p, '.ralph/PROMPT.md', 'task\n');
    write(job.p, 'src/a.txt', 'b\n');

    await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

    expect(job.p.git('ls-tree', '-r', '--name-only', 'HEAD', '--', '.ralph')).toBe('.ralph/PROMPT.md\n');
    expect(job.p.git('show', 'HEAD:.ralph/PROMPT.md')).toBe('task\n');
    expect(job.p.git('show', 'HEAD:src/a.txt')).toBe('b\n');
  });

  it('.github/ ignored by the agent: the work is still committed, its workflow change held back and listed', async () => {
    const job = await jobStarted();
    writeFileSync(job.p.path('.git/info/exclude'), '.github\n');
    write(job.p, WORKFLOW, 'on: push\njobs: { leak: { runs-on: x } }\n');
    write(job.p, 'src/a.txt', 'b\n');

    const done = await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

    expect(done).toEqual({ committed: true, heldBack: [WORKFLOW] });
    expect(job.p.git('show', `HEAD:${WORKFLOW}`)).toBe('on: push\n');
    expect(job.p.git('show', 'HEAD:src/a.txt')).toBe('b\n');
  });

  it('a new workflow the agent hid from git with an ignore rule is still listed as held back', async () => {
    const job = await jobStarted();
    writeFileSync(job.p.path('.git/info/exclude'), 'leak.yml\n');
    write(job.p, LEAK, 'on: push\n');

    const done = await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

    expect(done.heldBack).toEqual([LEAK]);
    expect(job.p.git('ls-tree', '-r', '--name-only', 'HEAD')).not.toContain(LEAK);
  });

  it('a tree cache the agent wrote into the index, naming a tree with its workflow: the commit holds the tree of the entries', async () => {
    const job = await jobStarted({ workflow: false });
    write(job.p, 'src/a.txt', 'b\n');
    // Files older than the index: git takes their entries as they are, re-reading none (a racily clean one would be, which drops the cache).
    for (const file of ['src/a.txt', '.ralph/PROMPT.md']) utimesSync(job.p.path(file), 1_700_000_000, 1_700_000_000);
    job.p.git('add', '-A');
    job.p.git('write-tree');
    const entries = readFileSync(job.p.path('.git/index'));
    write(job.p, LEAK, 'on: push\n');
    job.p.git('add', '-A');
    const leaking = job.p.git('write-tree').trim();
    rmSync(job.p.path('.github'), { recursive: true });
    writeFileSync(job.p.path('.git/index'), spliceTreeCache(entries, readFileSync(job.p.path('.git/index'))));
    // The plant is live: git's own write-tree gives the tree with the workflow.
    expect(job.p.git('ls-files')).not.toContain(LEAK);
    expect(job.p.git('write-tree').trim()).toBe(leaking);

    await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

    const tree = job.p.git('ls-tree', '-r', '--name-only', BRANCH).split('\n');
    expect(tree).not.toContain(LEAK);
    expect(job.p.git('show', `${BRANCH}:src/a.txt`)).toBe('b\n');
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

    const done = await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

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

    await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

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
    await commitWork(job.git, 'work\n', { since: job.since, branch: BRANCH, heldTree: job.heldTree, ownEntries: job.ownEntries });

    await pushHead(job.git, 'ralph/issue-7');

    const refs = execFileSync('git', ['--git-dir', origin.dir, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' });
    expect(refs.split('\n').filter(Boolean)).toEqual(['refs/heads/ralph/issue-7']);
  });
});
