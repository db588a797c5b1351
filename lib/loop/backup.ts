// Backups before each loop (`--backup`) and `--rollback`. A backup is a commit under
// refs/ralph/backups/ whose tree is the working tree as it is on disk — committed, staged,
// unstaged and untracked (non-ignored) files — built with git plumbing in a temporary index, so
// the user's working tree, index, HEAD, branches and stash list are never touched (the Bash
// tool stashed first and so lost uncommitted work). ralph's own
// runtime state under .ralph/ (logs, status files, dot-files) is never backed up or restored.
//
// A backup is one ralph recorded in its ledger when it made it (outside the project, where the
// agent cannot write): only those are listed, pruned and restored. A ref under refs/ralph/backups/
// or a `ralph-backup-loop-*` branch is the agent's to forge (refs/ is in the project), so neither
// its presence, its name nor where it points now decides anything; a restore uses the commit the
// ledger recorded.
//
// Restoring first checks that every object the recorded commit reaches still hashes to its id
// (git-object-check.ts: git reads an object file the agent rewrote as it is), then writes the
// backup's files into the working tree and removes files the backup did not have, again
// through a temporary index (`read-tree -m -u`); HEAD, the branch and the index stay as they
// are, so afterwards `git status`/`git diff` show what the rollback changed.

import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { headCommit, runGitCommand } from '../platform/git-operations.js';
import { firstForgedObject } from '../platform/git-object-check.js';
import type { ProcessRunner, RunResult } from '../platform/process.js';
import { firstLine } from '../text/lines.js';
import { readLedger, saveLedgerBackups, type LedgerBackup } from '../state/ledger.js';

export const BACKUP_REF_PREFIX = 'refs/ralph/backups/';
/** Branches the Bash tool made (`ralph-backup-loop-<N>-<epoch>`): never recorded, so not restored by ralph. */
export const BASH_BACKUP_BRANCH_PREFIX = 'refs/heads/ralph-backup-loop-';
const PRE_ROLLBACK = `${BACKUP_REF_PREFIX}pre-rollback-`;

// Paths ralph writes while it runs (control files such as fix_plan.md are backed up).
const RUNTIME_PATHS = ['.ralph/logs', '.ralph/sessions', '.ralph/status.json', '.ralph/progress.json', '.ralph/live.log'];
const RUNTIME_GLOBS = ['.ralph/.*', '.ralph/.*/**'];
const RUNTIME_PATHSPECS = [...RUNTIME_PATHS, ...RUNTIME_GLOBS.map((g) => `:(glob)${g}`)];

// Backups are ralph's commits, whoever the user is (and even when git has no identity set).
const BACKUP_IDENTITY = { name: 'ralph', email: 'ralph@localhost' };

export interface BackupGitOptions {
  projectDir: string;
  processRunner: ProcessRunner;
  env?: NodeJS.ProcessEnv;
  /** ms since the epoch, for ref names and commit dates (default: now). */
  now?: number;
}

export interface BackupLedgerOptions extends BackupGitOptions {
  /**
   * ralph's ledger (lib/state/ledger.ts), where each backup made is recorded. Only recorded
   * backups are listed, restored and pruned (oldest recorded first): a ref name is the agent's
   * to forge, so neither its presence nor the time in its name decides anything.
   */
  ledger: string;
}

export interface CreateBackupOptions extends BackupLedgerOptions {
  loop: number;
  /** Keep this many of ralph's backups, newest first (0: keep all). */
  keep: number;
}

export type CreateBackupResult = { ref: string; commit: string; pruned: string[] } | { skipped: string };

export interface BackupInfo {
  /** Full ref name (refs/ralph/backups/…). */
  ref: string;
  /** What to pass to `--rollback`. */
  name: string;
  loop: number | null;
  /** Seconds since the epoch. */
  createdAt: number;
  /** The commit ralph made, as the ledger recorded it. */
  commit: string;
  source: 'ralph';
}

export type RestoreBackupResult =
  | { kind: 'restored'; ref: string; commit: string; changed: string[]; safetyRef?: string }
  | { kind: 'dirty'; changes: string[] }
  | { kind: 'not-found'; target: string }
  /** A ref of that name is there, but ralph never recorded making it (forged, or the Bash tool's branch). */
  | { kind: 'not-recorded'; target: string; ref: string }
  | { kind: 'not-a-repo'; reason: string }
  /** An object the recorded commit reaches no longer holds what its id says: rewritten since (by the agent). */
  | { kind: 'changed'; name: string; object: string }
  | { kind: 'failed'; message: string };

/** Never throws: a backup that cannot be made is skipped with the reason (the loop goes on). */
export async function createBackup(options: CreateBackupOptions): Promise<CreateBackupResult> {
  const git = gitFor(options);
  const repo = await git.repoCheck();
  if (repo) return { skipped: repo };
  const now = options.now ?? Date.now();
  return git
    .withTempIndex(async (index) => {
      const head = await git.head();
      const tree = await git.snapshotTree(index, head);
      const commit = await git.commitTree(tree, head, `Ralph backup before loop #${options.loop}`, now);
      const ref = await git.createRef(`${BACKUP_REF_PREFIX}loop-${options.loop}-${Math.floor(now / 1000)}`, commit);
      const made = [...(readLedger(options.ledger, () => undefined)?.backups ?? []), { ref, commit, created_at: Math.floor(now / 1000) }];
      const { kept, pruned } = await pruneBackups(git, made, options.keep);
      saveLedgerBackups(options.ledger, options.projectDir, kept);
      return { ref, commit, pruned };
    })
    .catch((error: unknown) => ({ skipped: error instanceof Error ? error.message : String(error) }));
}

/** Every backup ralph recorded whose commit is still in the repository, newest first. */
export async function listBackups(options: BackupLedgerOptions): Promise<BackupInfo[] | { skipped: string }> {
  const git = gitFor(options);
  const repo = await git.repoCheck();
  if (repo) return { skipped: repo };
  return recordedBackups(git, options.ledger);
}

export interface RestoreBackupOptions extends BackupLedgerOptions {
  /** A name from listBackups, a full ref, or a Bash backup branch. */
  target: string;
  /** Restore even when there are uncommitted changes (they are backed up first). */
  force: boolean;
}

export async function restoreBackup(options: RestoreBackupOptions): Promise<RestoreBackupResult> {
  const git = gitFor(options);
  const repo = await git.repoCheck();
  if (repo) return { kind: 'not-a-repo', reason: repo };
  const found = (await recordedBackups(git, options.ledger)).find((b) => b.name === options.target || b.ref === options.target);
  if (!found) {
    const ref = options.target.startsWith('-') ? undefined : await git.resolveRef(options.target);
    return ref ? { kind: 'not-recorded', target: options.target, ref } : { kind: 'not-found', target: options.target };
  }
  // The commit id is ralph's record; the objects it reaches are in .git, the agent's to rewrite.
  const forged = await firstForgedObject({ runner: options.processRunner, cwd: options.projectDir, env: options.env ?? process.env }, found.commit).catch(
    (error: unknown) => error as Error,
  );
  if (forged instanceof Error) return { kind: 'failed', message: forged.message };
  if (forged !== undefined) return { kind: 'changed', name: found.name, object: forged };
  const now = options.now ?? Date.now();

  return git
    .withTempIndex(async (index) => {
      const head = await git.head();
      const current = await git.snapshotTree(index, head);
      const base = head ? await git.withoutRuntime(`${head}^{tree}`) : await git.emptyTree();
      const changes = current === base ? [] : await git.changedPaths(base, current);
      if (changes.length > 0 && !options.force) return { kind: 'dirty', changes } as const;
      let safetyRef: string | undefined;
      if (changes.length > 0) {
        const commit = await git.commitTree(current, head, 'Ralph backup before --rollback --force', now);
        safetyRef = await git.createRef(`${PRE_ROLLBACK}${Math.floor(now / 1000)}`, commit);
        const made = readLedger(options.ledger, () => undefined)?.backups ?? [];
        saveLedgerBackups(options.ledger, options.projectDir, [...made, { ref: safetyRef, commit, created_at: Math.floor(now / 1000) }]);
      }
      const target = await git.withoutRuntime(`${found.commit}^{tree}`);
      const changed = target === current ? [] : await git.changedPaths(current, target);
      // Two-tree read-tree: the temp index is exactly the working tree, so git updates and removes
      // only what differs; the real index, HEAD and the branch are not involved.
      if (changed.length > 0) await git.ok(['read-tree', '-m', '-u', current, target], { index });
      return { kind: 'restored', ref: found.ref, commit: found.commit, changed, safetyRef } as const;
    })
    .catch((error: unknown): RestoreBackupResult => {
      if (error instanceof GitFailure) return { kind: 'failed', message: error.message };
      throw error;
    });
}

/**
 * Deletes the oldest of the loop backups ralph made beyond `keep` (0: none); what is left of
 * them. A pre-rollback backup (the user's uncommitted work) is never pruned.
 */
async function pruneBackups(git: Git, made: LedgerBackup[], keep: number): Promise<{ kept: LedgerBackup[]; pruned: string[] }> {
  const loops = made.filter((b) => !b.ref.startsWith(PRE_ROLLBACK));
  const old = keep > 0 ? loops.slice(0, Math.max(0, loops.length - keep)) : [];
  const pruned: string[] = [];
  // With its old value: a ref moved off the commit ralph made there is no longer its backup,
  // and is left alone (forgotten all the same).
  for (const backup of old) {
    if ((await git.run(['update-ref', '-d', backup.ref, backup.commit])).code === 0) pruned.push(backup.ref);
  }
  return { kept: made.filter((b) => !old.includes(b)), pruned };
}

/** The backups the ledger records whose commit the repository still has, newest first. */
async function recordedBackups(git: Git, ledger: string): Promise<BackupInfo[]> {
  const made = readLedger(ledger, () => undefined)?.backups ?? [];
  if (made.length === 0) return [];
  // One answer line per commit, in order: `<id> commit <size>` or `<id> missing`.
  const checked = (await git.ok(['cat-file', '--batch-check'], { input: made.map((b) => `${b.commit}\n`).join('') })).split('\n');
  const backups = made.filter((b, i) => /^[0-9a-f]+ commit /.test(checked[i] ?? '')).map(describeBackup);
  return backups.sort((a, b) => b.createdAt - a.createdAt || (b.loop ?? 0) - (a.loop ?? 0) || b.name.localeCompare(a.name));
}

class GitFailure extends Error {}

type Git = ReturnType<typeof gitFor>;

function gitFor(options: BackupGitOptions) {
  const cwd = options.projectDir;
  // No optional locks: nothing here may refresh or rewrite the user's index as a side effect.
  const baseEnv = { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: '0' };
  const run = (args: string[], extra: { index?: string; input?: string; env?: Record<string, string> } = {}): Promise<RunResult> =>
    runGitCommand(options.processRunner, args, {
      cwd,
      input: extra.input,
      env: { ...baseEnv, ...(extra.index ? { GIT_INDEX_FILE: extra.index } : {}), ...extra.env },
    });
  const ok = async (args: string[], extra: Parameters<typeof run>[1] = {}): Promise<string> => {
    const result = await run(args, extra);
    if (result.spawnError) throw new GitFailure(`git could not be started: ${result.spawnError.message}`);
    if (result.code !== 0) throw new GitFailure(`git ${args[0]} failed: ${firstLine(result.stderr) || `exit ${result.code}`}`);
    return result.stdout;
  };

  const git = {
    run,
    ok,
    /** Why backups cannot work here, or undefined when this is a git work tree. */
    async repoCheck(): Promise<string | undefined> {
      const result = await run(['rev-parse', '--is-inside-work-tree']);
      if (result.spawnError) return 'git is not installed';
      return result.code === 0 && result.stdout.trim() === 'true' ? undefined : 'not a git repository';
    },
    head: () => headCommit({ runner: options.processRunner, cwd, env: baseEnv }),
    /** Runs `use` with a private index file that starts as a copy of the real one. */
    async withTempIndex<T>(use: (index: string) => Promise<T>): Promise<T> {
      const realIndex = resolve(cwd, (await ok(['rev-parse', '--git-path', 'index'])).trim());
      const dir = mkdtempSync(join(tmpdir(), 'ralph-backup-'));
      const index = join(dir, 'index');
      try {
        if (existsSync(realIndex)) {
          // A copy with the same mtime keeps git's stat cache valid: only changed files get hashed.
          copyFileSync(realIndex, index);
          const st = statSync(realIndex);
          utimesSync(index, st.atime, st.mtime);
        }
        return await use(index);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    /** The working tree as a tree object, without ralph's runtime state. */
    async snapshotTree(index: string, head: string | undefined): Promise<string> {
      if (!existsSync(index) && head) await ok(['read-tree', head], { index });
      // Runtime paths are dropped afterwards rather than excluded here: git add rejects an
      // exclude pathspec that names an ignored path ("paths are ignored by .gitignore").
      await ok(['add', '-A', '--', ':/'], { index });
      await ok(['rm', '--cached', '-r', '-q', '-f', '--ignore-unmatch', '--', ...RUNTIME_PATHSPECS], { index });
      return (await ok(['write-tree'], { index })).trim();
    },
    /** `tree` with ralph's runtime state taken out. */
    async withoutRuntime(tree: string): Promise<string> {
      const dir = mkdtempSync(join(tmpdir(), 'ralph-backup-'));
      const index = join(dir, 'index');
      try {
        await ok(['read-tree', tree], { index });
        await ok(['rm', '--cached', '-r', '-q', '-f', '--ignore-unmatch', '--', ...RUNTIME_PATHSPECS], { index });
        return (await ok(['write-tree'], { index })).trim();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async emptyTree(): Promise<string> {
      return (await ok(['mktree'], { input: '' })).trim();
    },
    async changedPaths(from: string, to: string): Promise<string[]> {
      const out = await ok(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to]);
      return out.split('\0').filter(Boolean);
    },
    async commitTree(tree: string, parent: string | undefined, message: string, now: number): Promise<string> {
      const date = `@${Math.floor(now / 1000)} +0000`;
      const args = ['commit-tree', '--no-gpg-sign', tree, ...(parent ? ['-p', parent] : []), '-m', message];
      return (
        await ok(args, {
          env: {
            GIT_AUTHOR_NAME: BACKUP_IDENTITY.name,
            GIT_AUTHOR_EMAIL: BACKUP_IDENTITY.email,
            GIT_AUTHOR_DATE: date,
            GIT_COMMITTER_NAME: BACKUP_IDENTITY.name,
            GIT_COMMITTER_EMAIL: BACKUP_IDENTITY.email,
            GIT_COMMITTER_DATE: date,
          },
        })
      ).trim();
    },
    /** Creates `ref` (or `ref-2`, `ref-3`, … if taken); never moves an existing ref. */
    async createRef(ref: string, commit: string): Promise<string> {
      for (let n = 1; ; n++) {
        const name = n === 1 ? ref : `${ref}-${n}`;
        // An empty old value: the update fails if the ref already exists.
        const result = await run(['update-ref', '--no-deref', name, commit, '']);
        if (result.code === 0) return name;
        if (n >= 50) throw new GitFailure(`git update-ref failed: ${firstLine(result.stderr)}`);
      }
    },
    /** The ref a name given to --rollback would have named (to say it is not a recorded backup). */
    async resolveRef(target: string): Promise<string | undefined> {
      const candidates = target.startsWith('refs/') ? [target] : [`${BACKUP_REF_PREFIX}${target}`, `refs/heads/${target}`];
      for (const candidate of candidates) {
        if ((await run(['rev-parse', '--verify', '-q', `${candidate}^{commit}`])).code === 0) return candidate;
      }
      return undefined;
    },
  };
  return git;
}

function describeBackup({ ref, commit, created_at }: LedgerBackup): BackupInfo {
  const name = ref.startsWith(BACKUP_REF_PREFIX) ? ref.slice(BACKUP_REF_PREFIX.length) : ref;
  const m = /^loop-(\d+)-/.exec(name);
  return { ref, name, loop: m?.[1] ? Number(m[1]) : null, createdAt: created_at, commit, source: 'ralph' };
}
