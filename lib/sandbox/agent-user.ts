// Whom the agent runs as, in a sandbox or not: never root. ralph run as an ordinary user runs it
// as that user. ralph run as root (CI, a container) runs it as the project's owner, who can write
// the project and nothing of root's: no setuid-root file, no file only root may read. A project
// owned by root has no such user, so the run refuses to start and says how to give it one; only
// without a sandbox may the user let the agent run as root instead (ALLOW_ROOT_AGENT, for a
// throw-away machine).

import { existsSync, lchownSync, lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { RalphError } from '../errors.js';

export interface AgentUser {
  uid: number;
  gid: number;
  /** ralph is root: the sandbox switches to this user (else it already is ralph's own). */
  switchTo: boolean;
}

/** ralph's own ids. */
export function ralphIds(): Ids {
  return { uid: process.getuid?.(), gid: process.getgid?.() };
}

export interface Ids {
  uid: number | undefined;
  gid: number | undefined;
}

/** The owner of `path` (the project folder). */
export function readOwner(path: string): Ids {
  try {
    const stats = statSync(path);
    return { uid: stats.uid, gid: stats.gid };
  } catch {
    return { uid: undefined, gid: undefined };
  }
}

/** The agent's user, from ralph's ids and the project's owner; a RalphError when only root is left. */
export function chooseAgentUser(ralph: Ids, projectOwner: Ids, projectDir: string): AgentUser {
  // No ids (not a POSIX system): nothing to switch.
  if (ralph.uid === undefined || ralph.gid === undefined) return { uid: 0, gid: 0, switchTo: false };
  if (ralph.uid !== 0) return { uid: ralph.uid, gid: ralph.gid, switchTo: false };
  if (projectOwner.uid !== undefined && projectOwner.uid !== 0 && projectOwner.gid !== undefined) {
    return { uid: projectOwner.uid, gid: projectOwner.gid, switchTo: true };
  }
  throw new RalphError('sandbox_as_root', `ralph runs as root and the project ${projectDir} belongs to root: the sandbox never runs the agent as root`, {
    details: [
      'Run as root, the sandbox runs the agent as the owner of the project folder, so that it can write the',
      'project and nothing that only root may touch. This project has no such owner. Nothing was run.',
      `Give the project to an ordinary user (chown -R <user>: ${projectDir}), and run ralph as that user.`,
    ],
    hint: 'chown the project to an ordinary user, or run ralph as an ordinary user',
  });
}

/**
 * Without a sandbox: chooseAgentUser, except that a root-owned project runs the agent as root
 * when the user allowed it (ALLOW_ROOT_AGENT); else a RalphError naming every way out.
 */
export function chooseHostAgentUser(ralph: Ids, projectOwner: Ids, projectDir: string, allowRoot: boolean): AgentUser {
  try {
    return chooseAgentUser(ralph, projectOwner, projectDir);
  } catch (error) {
    if (allowRoot) return { uid: 0, gid: 0, switchTo: false };
    if (!(error instanceof RalphError)) throw error;
  }
  throw new RalphError('agent_as_root', `ralph runs as root and the project ${projectDir} belongs to root: ralph never runs the agent as root`, {
    details: [
      'Run as root, ralph runs the agent (and the test commands of the gate) as the owner of the project',
      'folder, so that what the agent writes cannot act as root on this machine. This project has no such owner.',
      'Nothing was run. Either:',
      '  run ralph as an ordinary user who owns the project;',
      `  give the project to an ordinary user (chown -R <user>: ${projectDir}), and ralph, still root, runs the agent as that user;`,
      '  or, on a throw-away machine only, let the agent run as root: --allow-root-agent (ALLOW_ROOT_AGENT=true in .ralphrc).',
    ],
    hint: 'run ralph as an ordinary user, chown the project to one, or pass --allow-root-agent on a throw-away machine',
  });
}

/** setpriv (util-linux) from the system's own folders, to switch to the agent's user; a RalphError when missing. */
export function findSetpriv(): string {
  const found = ['/usr/bin/setpriv', '/bin/setpriv', '/usr/sbin/setpriv', '/sbin/setpriv'].find((path) => existsSync(path));
  if (found) return found;
  throw new RalphError('agent_as_root', 'ralph runs as root and needs setpriv (util-linux) to run the agent as an ordinary user, and it is not installed', {
    details: [
      'Refusing to run the agent as root. Nothing was run.',
      'Install it: apt-get install util-linux (Debian, Ubuntu), dnf install util-linux-core (Fedora)',
    ],
    hint: 'install util-linux, or run ralph as an ordinary user',
  });
}

/** ralph run as root on a project an ordinary user owns: that owner (whom the agent runs as); else undefined. */
export function ownerOfRootRun(projectDir: string): { uid: number; gid: number } | undefined {
  const owner = readOwner(projectDir);
  if (ralphIds().uid !== 0 || owner.uid === undefined || owner.uid === 0 || owner.gid === undefined) return undefined;
  return { uid: owner.uid, gid: owner.gid };
}

/**
 * Gives what root owns under `tree` to `owner` (ralph run as root on a project an ordinary user
 * owns: a --parallel unit's worktree, the objects and refs a merge wrote), so the agent, which
 * runs as that owner, can write there. No link is followed, no other device entered, and no file
 * with more than one link is given (a hard link to a file of root's elsewhere would hand that
 * file over). Throws the first failure.
 */
export function giveRootOwnedTo(tree: string, owner: { uid: number; gid: number }): void {
  let device: number;
  try {
    device = lstatSync(tree).dev;
  } catch {
    return;
  }
  const give = (path: string): void => {
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch {
      return;
    }
    if (stats.dev !== device) return;
    if (stats.uid === 0 && (stats.isDirectory() || stats.isSymbolicLink() || stats.nlink === 1)) lchownSync(path, owner.uid, owner.gid);
    if (!stats.isDirectory()) return;
    for (const name of readdirSync(path)) give(join(path, name));
  };
  give(tree);
}
