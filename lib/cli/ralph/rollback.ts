// `ralph --rollback [NAME]`: without a name, lists the backups newest first (those ralph recorded
// in its ledger when it made them: a ref anyone can make under .git is not offered); with one,
// restores that backup's files into the working tree. HEAD, the branch and the index are left
// alone. Refuses while there are uncommitted changes unless --force, which first backs the
// current state up.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { RalphError } from '../../errors.js';
import { BASH_BACKUP_BRANCH_PREFIX, listBackups, restoreBackup, type BackupInfo, type RestoreBackupResult } from '../../loop/backup.js';
import { ledgerPath } from '../../state/ledger-path.js';
import { createDeps } from '../../platform/create-deps.js';
import { nodeProcessRunner, type ProcessRunner } from '../../platform/process.js';
import { acquireProjectLock } from '../../state/lock.js';
import { ralphPaths } from '../../state/paths.js';
import { formatLocalDateTime } from '../../state/timestamps.js';
import { printJson, type WriteText } from '../print-json.js';

export interface RollbackOptions {
  projectDir: string;
  target?: string;
  force: boolean;
  json: boolean;
  jq?: string;
  write: WriteText;
  processRunner?: ProcessRunner;
  env?: NodeJS.ProcessEnv;
}

const NOT_A_REPO_HINT = 'run ralph --rollback inside the git repository that ralph --backup backed up';

export async function runRollback(options: RollbackOptions): Promise<number> {
  return options.target === undefined ? showBackups(options) : rollBack(options, options.target);
}

async function showBackups(options: RollbackOptions): Promise<number> {
  const backups = await listBackups(gitOptions(options));
  if (!Array.isArray(backups)) throw new RalphError('not_a_repo', `Cannot list backups: ${backups.skipped}`, { hint: NOT_A_REPO_HINT });
  if (options.json || options.jq !== undefined) {
    await printJson(backups.map(toJson), options.jq, options.write);
    return backups.length > 0 ? 0 : 1;
  }
  if (backups.length === 0) {
    options.write('No backups found (ralph --backup makes one before each loop)\n');
    return 1;
  }
  const width = Math.max(...backups.map((b) => b.name.length));
  options.write('Available backups (newest first):\n');
  for (const b of backups) {
    const loop = b.loop === null ? '' : `loop ${b.loop}`;
    options.write(`  ${b.name.padEnd(width)}  ${loop.padEnd(9)}${formatLocalDateTime(b.createdAt * 1000)}  ${b.commit.slice(0, 7)}\n`);
  }
  options.write('Restore one with: ralph --rollback <name>\n');
  return 0;
}

async function rollBack(options: RollbackOptions, target: string): Promise<number> {
  const paths = ralphPaths(options.projectDir);
  // A running loop would keep writing while files are swapped under it.
  const lock = existsSync(paths.ralphDir)
    ? acquireProjectLock(paths, { pid: process.pid, logger: createDeps({ cwd: options.projectDir, env: options.env }).logger })
    : undefined;
  try {
    return await report(options, target, await restoreBackup({ ...gitOptions(options), target, force: options.force }));
  } finally {
    lock?.release();
  }
}

async function report(options: RollbackOptions, target: string, result: RestoreBackupResult): Promise<number> {
  switch (result.kind) {
    case 'not-a-repo':
      throw new RalphError('not_a_repo', `Cannot roll back: ${result.reason}`, { hint: NOT_A_REPO_HINT });
    case 'not-found':
      throw new RalphError('backup_not_found', `No backup named '${target}'`, { hint: 'run ralph --rollback to list the backups' });
    case 'not-recorded':
      throw new RalphError(
        'backup_not_recorded',
        result.ref.startsWith(BASH_BACKUP_BRANCH_PREFIX)
          ? `'${target}' is a branch of the Bash tool, not a backup ralph recorded; ralph rolls back only to the backups it made`
          : `'${target}' (${result.ref}) is not a backup ralph recorded: anything that can write .git (the agent) can make such a ref; ralph rolls back only to the backups it made`,
        {
          hint: `run ralph --rollback to list them; to take the files of ${result.ref} anyway, check what it holds, then: git restore --source=${result.ref} --worktree -- .`,
        },
      );
    case 'changed':
      throw new RalphError(
        'backup_changed',
        `Rollback failed: backup ${target} was changed since ralph made it: object ${result.object} does not hold what its id says`,
        {
          hint: 'anything that can write .git (the agent) can rewrite an object; nothing was restored: take the files from a copy you trust (a remote, another clone)',
        },
      );
    case 'failed':
      throw new RalphError('rollback_failed', `Rollback failed: ${result.message}`, {
        hint: 'check git status; git left the working tree as it was when the error came',
      });
    case 'dirty':
      throw new RalphError('uncommitted_changes', `There are uncommitted changes in ${result.changes.length} file(s); a rollback would overwrite them`, {
        details: [...result.changes.slice(0, 10).map((p) => `  ${p}`), ...(result.changes.length > 10 ? ['  …'] : [])],
        hint: `commit or stash them, or run ralph --rollback ${target} --force (it backs them up first)`,
      });
    case 'restored':
      if (options.json || options.jq !== undefined) {
        await printJson(
          { restored: result.ref, commit: result.commit, changed: result.changed, safety_backup: result.safetyRef ?? null },
          options.jq,
          options.write,
        );
        return 0;
      }
      if (result.safetyRef) options.write(`Backed up the uncommitted changes first: ${result.safetyRef}\n`);
      options.write(`Rolled back to: ${target}\n`);
      options.write(
        `${result.changed.length} file(s) restored from ${result.commit.slice(0, 7)}; HEAD, the branch and the index are unchanged (see git status).\n`,
      );
      return 0;
  }
}

function gitOptions(options: RollbackOptions) {
  const env = options.env ?? process.env;
  return {
    projectDir: options.projectDir,
    processRunner: options.processRunner ?? nodeProcessRunner,
    env,
    ledger: ledgerPath(options.projectDir, env, homedir()),
  };
}

function toJson(b: BackupInfo): Record<string, unknown> {
  return { name: b.name, ref: b.ref, loop: b.loop, created_at: new Date(b.createdAt * 1000).toISOString(), commit: b.commit, source: b.source };
}
