// Backups and rollback against real git repositories: a backup holds committed, staged,
// unstaged and untracked work while the working tree, index, HEAD, branch and stash list stay
// untouched; rollback restores files without moving HEAD and refuses to overwrite uncommitted
// work unless forced (and then backs it up first).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackup, listBackups, restoreBackup, type BackupInfo } from '../../../lib/loop/backup.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { ledgerPath, readLedger } from '../../../lib/state/ledger.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const env = { ...process.env, ...GIT_TEST_ENV };
const T0 = Date.UTC(2026, 10, 30, 4, 0, 0);

let projects: TmpProject[] = [];
afterEach(() => {
  for (const p of projects) p.cleanup();
  projects = [];
});

function repo(files: Record<string, string>, options: { commit?: boolean } = {}): TmpProject {
  const p = tmpProject({ '.gitignore': 'build/\n.ralph/logs/\n', ...files }, { git: true, commit: options.commit });
  projects.push(p);
  return p;
}

function write(p: TmpProject, path: string, content: string): void {
  mkdirSync(dirname(p.path(path)), { recursive: true });
  writeFileSync(p.path(path), content);
}

// ralph's ledger of the project (under this test file's XDG_STATE_HOME): the backups it made.
const git = (p: TmpProject) => ({ projectDir: p.dir, processRunner: nodeProcessRunner, env, ledger: ledgerPath(p.dir, process.env, homedir()) });

/** Everything a backup must leave alone. */
function gitState(p: TmpProject) {
  const index = p.path('.git/index');
  return {
    index: existsSync(index) ? createHash('sha1').update(readFileSync(index)).digest('hex') : null,
    indexMtime: existsSync(index) ? statSync(index).mtimeMs : null,
    head: headOf(p),
    branch: p.git('symbolic-ref', '-q', 'HEAD').trim(),
    stash: p.git('stash', 'list'),
    files: worktree(p),
  };
}

function headOf(p: TmpProject): string | null {
  try {
    return p.git('rev-parse', '--verify', '-q', 'HEAD').trim();
  } catch {
    return null; // no commits yet
  }
}

function worktree(p: TmpProject): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.name === '.git') continue;
      if (entry.isDirectory()) walk(full);
      else out[relative(p.dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(p.dir);
  return out;
}

function filesIn(p: TmpProject, ref: string): string[] {
  return p.git('ls-tree', '-r', '--name-only', ref).split('\n').filter(Boolean).sort();
}

const show = (p: TmpProject, ref: string, path: string) => p.git('show', `${ref}:${path}`);

async function backup(p: TmpProject, loop: number, at = T0 + loop * 60_000, keep = 20): Promise<string> {
  const result = await createBackup({ ...git(p), loop, keep, now: at });
  if (!('ref' in result)) throw new Error(`backup skipped: ${result.skipped}`);
  return result.ref;
}

describe('createBackup', () => {
  it("holds committed, staged, unstaged and untracked work and touches nothing of the user's", async () => {
    const p = repo({ 'a.txt': 'committed\n', 'b.txt': 'keep\n', '.ralph/fix_plan.md': '- [ ] x\n' });
    write(p, 'a.txt', 'unstaged edit\n');
    write(p, 'c.txt', 'staged new file\n');
    p.git('add', 'c.txt');
    write(p, 'c.txt', 'staged then edited\n');
    write(p, 'notes/new.md', 'untracked\n');
    write(p, 'build/out.bin', 'ignored\n');
    p.git('stash', 'list');
    const before = gitState(p);

    const ref = await backup(p, 2);

    expect(ref).toBe(`refs/ralph/backups/loop-2-${(T0 + 120_000) / 1000}`);
    expect(gitState(p)).toEqual(before);
    expect(filesIn(p, ref)).toEqual(['.gitignore', '.ralph/fix_plan.md', 'a.txt', 'b.txt', 'c.txt', 'notes/new.md']);
    expect(show(p, ref, 'a.txt')).toBe('unstaged edit\n');
    expect(show(p, ref, 'c.txt')).toBe('staged then edited\n');
    expect(show(p, ref, 'notes/new.md')).toBe('untracked\n');
    expect(p.git('rev-parse', `${ref}^`).trim()).toBe(before.head);
    expect(p.git('log', '-1', '--format=%an|%s', ref).trim()).toBe('ralph|Ralph backup before loop #2');
  });

  it("leaves ralph's runtime state out, even when it is tracked", async () => {
    const p = repo({ 'src.ts': 'x\n', '.ralph/.call_count': '3\n', '.ralph/status.json': '{}\n', '.ralph/PROMPT.md': 'p\n' });
    write(p, '.ralph/progress.json', '{}');
    write(p, '.ralph/logs/claude_output_1.log', 'log');
    const ref = await backup(p, 1);
    expect(filesIn(p, ref)).toEqual(['.gitignore', '.ralph/PROMPT.md', 'src.ts']);
  });

  it("backs up the whole repository when the project is a subfolder, leaving the project's runtime state out", async () => {
    const p = repo({ 'app/src.ts': 'v1\n', 'lib/shared.ts': 'v1\n', 'app/.ralph/PROMPT.md': 'p\n' });
    write(p, 'lib/shared.ts', 'v2 outside the project folder\n');
    write(p, 'app/.ralph/.call_count', '4\n');
    write(p, 'app/.ralph/status.json', '{}\n');
    const before = gitState(p);
    const result = await createBackup({ ...git(p), projectDir: p.path('app'), loop: 1, keep: 5, now: T0 });
    const ref = (result as { ref: string }).ref;
    expect(gitState(p)).toEqual(before);
    expect(filesIn(p, ref)).toEqual(['.gitignore', 'app/.ralph/PROMPT.md', 'app/src.ts', 'lib/shared.ts']);
    expect(show(p, ref, 'lib/shared.ts')).toBe('v2 outside the project folder\n');
  });

  it('works in a repository without commits', async () => {
    const p = repo({ 'a.txt': 'first\n' }, { commit: false });
    const before = gitState(p);
    const ref = await backup(p, 1);
    expect(gitState(p)).toEqual(before);
    expect(filesIn(p, ref)).toEqual(['.gitignore', 'a.txt']);
    expect(p.git('rev-list', '--count', ref).trim()).toBe('1');
  });

  it('skips, without failing, outside a git repository', async () => {
    const p = tmpProject({ 'a.txt': 'x' });
    projects.push(p);
    expect(await createBackup({ ...git(p), loop: 1, keep: 5 })).toEqual({ skipped: 'not a git repository' });
  });

  it('skips when git cannot be started', async () => {
    const p = repo({ 'a.txt': 'x' });
    expect(await createBackup({ ...git(p), env: { ...env, PATH: '/nonexistent' }, loop: 1, keep: 5 })).toEqual({ skipped: 'git is not installed' });
  });

  it('keeps the newest N of its own backups and never prunes Bash branches', async () => {
    const p = repo({ 'a.txt': 'x\n' });
    p.git('branch', 'ralph-backup-loop-1-1700000000');
    for (let loop = 1; loop <= 4; loop++) {
      write(p, 'a.txt', `loop ${loop}\n`);
      await createBackup({ ...git(p), loop, keep: 2, now: T0 + loop * 1000 });
    }
    const refs = p.git('for-each-ref', '--format=%(refname)').split('\n').filter(Boolean);
    expect(refs.filter((r) => r.startsWith('refs/ralph/'))).toEqual([
      `refs/ralph/backups/loop-3-${T0 / 1000 + 3}`,
      `refs/ralph/backups/loop-4-${T0 / 1000 + 4}`,
    ]);
    expect(refs).toContain('refs/heads/ralph-backup-loop-1-1700000000');
  });

  it('prunes only the backups it recorded in the ledger, whatever refs the agent forged', async () => {
    const p = repo({ 'a.txt': 'x\n' });
    const real: string[] = [];
    for (let loop = 1; loop <= 3; loop++) {
      write(p, 'a.txt', `loop ${loop}\n`);
      real.push(await backup(p, loop, T0 + loop * 1000, 4));
    }
    // The agent forges 20 backups dated 2100 (refs/ is in the project): by the time in their
    // names they are the newest, and pruning by it would delete every real backup.
    const head = p.git('rev-parse', 'HEAD').trim();
    for (let n = 1; n <= 20; n++) p.git('update-ref', `refs/ralph/backups/loop-1-4102444800-${n}`, head);
    write(p, 'a.txt', 'loop 4\n');
    real.push(await backup(p, 4, T0 + 4000, 4));
    write(p, 'a.txt', 'loop 5\n');
    const result = await createBackup({ ...git(p), loop: 5, keep: 4, now: T0 + 5000 });
    if (!('ref' in result)) throw new Error(result.skipped);
    real.push(result.ref);
    // The oldest real one went, the four newest real ones stayed, the forged ones were not touched.
    expect(result.pruned).toEqual([real[0]]);
    const refs = p.git('for-each-ref', '--format=%(refname)', 'refs/ralph/backups/').split('\n').filter(Boolean);
    for (const ref of real.slice(1)) expect(refs).toContain(ref);
    expect(refs).not.toContain(real[0]);
    expect(refs.filter((r) => r.includes('-4102444800-'))).toHaveLength(20);
    expect(readLedger(git(p).ledger, () => undefined)?.backups.map((b) => b.ref)).toEqual(real.slice(1));
  });

  it('leaves a recorded backup ref alone once something else moved it, and forgets it', async () => {
    const p = repo({ 'a.txt': 'x\n' });
    const first = await backup(p, 1, T0 + 1000, 1);
    write(p, 'a.txt', 'y\n');
    p.git('add', '-A');
    p.git('commit', '-qm', 'y');
    // The agent points ralph's ref at a commit of its own.
    p.git('update-ref', first, 'HEAD');
    const second = await createBackup({ ...git(p), loop: 2, keep: 1, now: T0 + 2000 });
    expect(second).toMatchObject({ pruned: [] });
    expect(p.git('rev-parse', first).trim()).toBe(p.git('rev-parse', 'HEAD').trim());
    expect(readLedger(git(p).ledger, () => undefined)?.backups.map((b) => b.ref)).toEqual([(second as { ref: string }).ref]);
  });

  it('never overwrites a backup made in the same second', async () => {
    const p = repo({ 'a.txt': 'x\n' });
    const first = await backup(p, 1, T0);
    write(p, 'a.txt', 'y\n');
    const second = await backup(p, 1, T0);
    expect(second).toBe(`${first}-2`);
    expect(show(p, first, 'a.txt')).toBe('x\n');
    expect(show(p, second, 'a.txt')).toBe('y\n');
  });
});

describe('listBackups', () => {
  it('lists the backups ralph recorded, newest first, and no ref it did not make', async () => {
    const p = repo({ 'a.txt': 'x\n' });
    p.git('branch', `ralph-backup-loop-9-${T0 / 1000 + 30}`);
    const first = await backup(p, 1, T0 + 10_000);
    await backup(p, 2, T0 + 60_000);
    // Forged: a far-future time in the name, made with plain git (the agent can write refs/).
    p.git('update-ref', 'refs/ralph/backups/loop-1-4102444800', 'HEAD');
    // A recorded backup's ref moved to another commit: listed with the commit ralph made.
    const made = p.git('rev-parse', first).trim();
    write(p, 'a.txt', 'agent\n');
    p.git('commit', '-qam', 'agent');
    p.git('update-ref', first, 'HEAD');
    const list = (await listBackups(git(p))) as BackupInfo[];
    expect(list.map((b) => [b.name, b.loop, b.source])).toEqual([
      [`loop-2-${T0 / 1000 + 60}`, 2, 'ralph'],
      [`loop-1-${T0 / 1000 + 10}`, 1, 'ralph'],
    ]);
    expect(list[1]!.commit).toBe(made);
  });

  it('reports when the directory is not a repository', async () => {
    const p = tmpProject({});
    projects.push(p);
    expect(await listBackups(git(p))).toEqual({ skipped: 'not a git repository' });
  });
});

describe('restoreBackup', () => {
  async function scenario() {
    const p = repo({ 'a.txt': 'v1\n', 'gone-later.txt': 'here\n', '.ralph/fix_plan.md': '- [ ] one\n' });
    write(p, 'a.txt', 'v2 (uncommitted)\n');
    write(p, 'new.txt', 'untracked at backup time\n');
    const ref = await backup(p, 2);
    p.git('add', '-A');
    p.git('commit', '-q', '-m', 'later work');
    write(p, 'a.txt', 'v3\n');
    rmSync(p.path('new.txt'));
    rmSync(p.path('gone-later.txt'));
    write(p, 'made-after.txt', 'after\n');
    write(p, '.ralph/fix_plan.md', '- [x] one\n');
    p.git('add', '-A');
    p.git('commit', '-q', '-m', 'more work');
    write(p, '.ralph/logs/claude_output_x.log', 'runtime log\n');
    return { p, ref, name: ref.slice('refs/ralph/backups/'.length) };
  }

  it("restores the backup's files and leaves HEAD, the branch and the index alone", async () => {
    const { p, name } = await scenario();
    const before = gitState(p);
    const result = await restoreBackup({ ...git(p), target: name, force: false });
    expect(result).toMatchObject({ kind: 'restored', changed: ['.ralph/fix_plan.md', 'a.txt', 'gone-later.txt', 'made-after.txt', 'new.txt'] });
    const after = gitState(p);
    expect({ head: after.head, branch: after.branch, index: after.index, stash: after.stash }).toEqual({
      head: before.head,
      branch: before.branch,
      index: before.index,
      stash: before.stash,
    });
    expect(after.files).toEqual({
      '.gitignore': 'build/\n.ralph/logs/\n',
      '.ralph/fix_plan.md': '- [ ] one\n',
      '.ralph/logs/claude_output_x.log': 'runtime log\n',
      'a.txt': 'v2 (uncommitted)\n',
      'gone-later.txt': 'here\n',
      'new.txt': 'untracked at backup time\n',
    });
  });

  it('refuses while there are uncommitted changes, and changes nothing', async () => {
    const { p, name } = await scenario();
    write(p, 'a.txt', 'precious edit\n');
    write(p, 'scratch.txt', 'untracked work\n');
    const before = gitState(p);
    expect(await restoreBackup({ ...git(p), target: name, force: false })).toEqual({ kind: 'dirty', changes: ['a.txt', 'scratch.txt'] });
    expect(gitState(p)).toEqual(before);
  });

  it('with force, backs the uncommitted work up first, then restores', async () => {
    const { p, name } = await scenario();
    write(p, 'a.txt', 'precious edit\n');
    const result = await restoreBackup({ ...git(p), target: name, force: true, now: T0 + 3_600_000 });
    expect(result.kind).toBe('restored');
    const safety = (result as { safetyRef: string }).safetyRef;
    expect(safety).toBe(`refs/ralph/backups/pre-rollback-${T0 / 1000 + 3600}`);
    // Recorded, so it can be rolled back to in turn; and never pruned by later loops' backups.
    expect(((await listBackups(git(p))) as BackupInfo[]).map((b) => b.ref)).toContain(safety);
    await backup(p, 7, T0 + 7_200_000, 1);
    expect(((await listBackups(git(p))) as BackupInfo[]).map((b) => b.ref)).toContain(safety);
    expect(show(p, safety, 'a.txt')).toBe('precious edit\n');
    expect(readFileSync(p.path('a.txt'), 'utf8')).toBe('v2 (uncommitted)\n');
  });

  it("does not count ralph's runtime files as uncommitted work", async () => {
    const { p, name } = await scenario();
    write(p, '.ralph/.call_count', '7\n');
    write(p, '.ralph/status.json', '{"status":"running"}\n');
    expect((await restoreBackup({ ...git(p), target: name, force: false })).kind).toBe('restored');
    expect(readFileSync(p.path('.ralph/.call_count'), 'utf8')).toBe('7\n');
  });

  it('restores no ref ralph did not record (a forged one, a Bash branch), and says so', async () => {
    const p = repo({ 'a.txt': 'old\n' });
    p.git('branch', 'ralph-backup-loop-3-1764474553');
    p.git('update-ref', 'refs/ralph/backups/loop-1-4102444800', 'HEAD');
    write(p, 'a.txt', 'new\n');
    p.git('commit', '-q', '-am', 'change');
    expect(await restoreBackup({ ...git(p), target: 'ralph-backup-loop-3-1764474553', force: false })).toEqual({
      kind: 'not-recorded',
      target: 'ralph-backup-loop-3-1764474553',
      ref: 'refs/heads/ralph-backup-loop-3-1764474553',
    });
    expect(await restoreBackup({ ...git(p), target: 'loop-1-4102444800', force: false })).toEqual({
      kind: 'not-recorded',
      target: 'loop-1-4102444800',
      ref: 'refs/ralph/backups/loop-1-4102444800',
    });
    expect(readFileSync(p.path('a.txt'), 'utf8')).toBe('new\n');
  });

  it('restores the commit ralph recorded, whatever its ref points at now', async () => {
    const { p, name, ref } = await scenario();
    p.git('update-ref', ref, 'HEAD');
    const result = await restoreBackup({ ...git(p), target: name, force: false });
    expect(result).toMatchObject({ kind: 'restored', ref });
    expect(readFileSync(p.path('a.txt'), 'utf8')).toBe('v2 (uncommitted)\n');
  });

  it('says when the backup does not exist', async () => {
    const p = repo({ 'a.txt': 'x' });
    expect(await restoreBackup({ ...git(p), target: 'loop-1-1', force: false })).toEqual({ kind: 'not-found', target: 'loop-1-1' });
    expect(await restoreBackup({ ...git(p), target: '--output=/tmp/x', force: false })).toEqual({ kind: 'not-found', target: '--output=/tmp/x' });
  });
});
