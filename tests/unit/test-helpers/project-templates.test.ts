// tmpProject(tree, { git: true }) made again for a tree it made before copies that project
// instead of running git: the copy is the repository git made (the same commit, branch, index
// entries and config), git finds it clean without refreshing its index, a test's changes to one
// project never reach the next, and the git processes saved are counted.

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findExecutable } from '../../../lib/platform/find-executable.js';
import { PROJECT_TEMPLATES_ENV } from '../../helpers/project-templates.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const made: TmpProject[] = [];
const scratch: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const project of made.splice(0)) project.cleanup();
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Puts a git that counts its calls first on PATH (PATH is part of a template's key, so the
 * test's trees are new to the run) and a templates folder of the test's own in the environment.
 */
function countingGit(): () => number {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-counting-git-'));
  scratch.push(dir);
  const realGit = findExecutable('git', process.env)!;
  writeFileSync(join(dir, 'git'), `#!/bin/sh\necho "$*" >> '${dir}/calls'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(dir, 'git'), 0o755);
  const templates = mkdtempSync(join(tmpdir(), 'ralph-templates-test-'));
  scratch.push(templates);
  vi.stubEnv('PATH', `${dir}${delimiter}${process.env.PATH}`);
  vi.stubEnv(PROJECT_TEMPLATES_ENV, templates);
  return () => {
    try {
      return readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };
}

function make(tree: Record<string, string>, options: { commit?: boolean } = {}): TmpProject {
  const project = tmpProject(tree, { git: true, ...options });
  made.push(project);
  return project;
}

// Paths of every length from 1 to 9 characters: each pads its index entry differently.
const TREE = ralphProjectTree({
  a: '1\n',
  bb: '2\n',
  ccc: '3\n',
  dddd: '4\n',
  eeeee: '5\n',
  ffffff: '6\n',
  'dir/ggg': '7\n',
  hhhhhhhh: '8\n',
  iiiiiiiii: '9\n',
});

describe('tmpProject with git, for a tree made before', () => {
  it('runs no git from the third project of a tree on (the second keeps it); another tree is made by git', () => {
    const gitCalls = countingGit();
    make(TREE);
    expect(gitCalls()).toBe(3);
    make(TREE);
    expect(gitCalls()).toBe(6);
    make(TREE);
    make(TREE);
    expect(gitCalls()).toBe(6);
    make({ ...TREE, a: 'other\n' });
    expect(gitCalls()).toBe(9);
  });

  it('copies the repository git made: the same commit, branch, entries and config, clean by its stat data alone', () => {
    countingGit();
    const [byGit, kept, copy] = [make(TREE), make(TREE), make(TREE)];
    expect(copy.dir).not.toBe(kept.dir);
    // The commit of the project kept (git's own of the first differs by its time only).
    expect(copy.git('rev-parse', 'HEAD')).toBe(kept.git('rev-parse', 'HEAD'));
    for (const args of [
      ['rev-parse', 'HEAD^{tree}'],
      ['log', '--format=%an %ae %cn %ce %s'],
      ['symbolic-ref', 'HEAD'],
      ['ls-files', '-s'],
      ['config', '--local', '--list'],
    ]) {
      expect(copy.git(...args), args.join(' ')).toBe(byGit.git(...args));
    }
    // diff-files compares the index's stat data with the files' and refreshes nothing: an entry
    // whose stat data is the template's (another inode, another ctime) would be listed.
    expect(copy.git('diff-files', '--name-only')).toBe('');
    const index = readFileSync(copy.path('.git/index'));
    expect(copy.git('status', '--porcelain')).toBe('');
    expect(readFileSync(copy.path('.git/index'))).toEqual(index);
    expect(copy.git('fsck', '--strict', '--no-progress')).toBe('');
  });

  it("a test's changes to its project reach no later project of the same tree", () => {
    countingGit();
    make(TREE);
    const kept = make(TREE);
    writeFileSync(kept.path('a'), 'changed\n');
    kept.git('commit', '-qam', 'changed');
    const copy = make(TREE);
    writeFileSync(copy.path('bb'), 'changed too\n');
    const next = make(TREE);
    expect(next.git('log', '--format=%s')).toBe('initial\n');
    expect(readFileSync(next.path('a'), 'utf8')).toBe('1\n');
    expect(next.git('status', '--porcelain')).toBe('');
  });

  it('a tree made without its commit is copied without one', () => {
    const gitCalls = countingGit();
    for (let i = 0; i < 3; i++) make(TREE, { commit: false });
    expect(gitCalls()).toBe(2);
    const copy = made.at(-1)!;
    expect(copy.git('status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(copy.git('ls-files')).toBe('');
    expect(copy.git('status', '--porcelain')).toContain('?? a\n');
  });
});
