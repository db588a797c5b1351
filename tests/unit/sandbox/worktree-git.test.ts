// The git data of a linked worktree (a ralph --parallel unit), mounted into a sandbox so its
// agent can commit there: its admin folder, the objects and its branch's ref folder writable;
// what says where git looks, the config and HEAD read-only; nothing for a forged .git file.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dockerRunArgs } from '../../../lib/sandbox/docker-sandbox.js';
import { bwrapOptions } from '../../../lib/sandbox/bwrap-sandbox.js';
import { worktreeGitMounts } from '../../../lib/sandbox/worktree-git.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function repoWithWorktree() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-wt-git-')));
  dirs.push(root);
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  git(root, 'init', '-q', '-b', 'main');
  writeFileSync(join(root, 'a.txt'), 'a\n');
  git(root, 'add', 'a.txt');
  git(root, 'commit', '-q', '-m', 'a');
  const worktree = join(root, '.ralph', 'worktrees', 'p1-unit');
  git(root, 'worktree', 'add', '-q', '-b', 'ralph/p1/unit', worktree);
  return { root, worktree };
}

describe('worktreeGitMounts', () => {
  it("names the worktree's admin folder, the objects and its branch's folders writable, and what git reads to find them read-only", () => {
    const { root, worktree } = repoWithWorktree();
    const git = join(root, '.git');
    expect(worktreeGitMounts(worktree)).toEqual({
      writable: [
        join(git, 'worktrees', 'p1-unit'),
        join(git, 'objects'),
        join(git, 'refs', 'heads', 'ralph', 'p1'),
        join(git, 'logs', 'refs', 'heads', 'ralph', 'p1'),
      ],
      readOnly: [
        join(git, 'worktrees', 'p1-unit', 'gitdir'),
        join(git, 'worktrees', 'p1-unit', 'commondir'),
        join(git, 'objects', 'info'),
        join(git, 'config'),
        join(git, 'HEAD'),
      ],
    });
    const bwrap = bwrapOptions({
      projectDir: worktree,
      realHome: '/home/u',
      privateHome: '/rt/home',
      system: [],
      binds: [],
      network: 'none',
      worktreeGit: worktreeGitMounts(worktree),
    }).join(' ');
    expect(bwrap).toContain(`--bind ${join(git, 'objects')} ${join(git, 'objects')} `);
    expect(bwrap).toContain(`--ro-bind ${join(git, 'config')} ${join(git, 'config')}`);
    const docker = dockerRunArgs({
      image: 'img',
      memory: '1g',
      cpus: '1',
      network: 'none',
      name: 'n',
      projectDir: worktree,
      home: '/rt/home',
      uid: 1,
      gid: 1,
      owner: { host: 'h', pid: 1 },
      worktreeGit: worktreeGitMounts(worktree),
    }).join(' ');
    expect(docker).toContain(`-v ${join(git, 'worktrees', 'p1-unit')}:${join(git, 'worktrees', 'p1-unit')} `);
    expect(docker).toContain(`-v ${join(git, 'config')}:${join(git, 'config')}:ro`);
  });

  it('gives nothing for a project that is not a linked worktree, or whose .git file points elsewhere', () => {
    const { root, worktree } = repoWithWorktree();
    expect(worktreeGitMounts(root)).toBeUndefined();
    writeFileSync(join(worktree, '.git'), `gitdir: ${join(root, '.git')}\n`);
    expect(worktreeGitMounts(worktree)).toBeUndefined();
  });
});
