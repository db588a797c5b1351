// Whom the agent runs as inside a sandbox: never root. ralph run as an ordinary user runs it as
// that user. ralph run as root (CI, a container) runs it as the project's owner, who can write
// the project and nothing of root's: no setuid-root file, no file only root may read. A project
// owned by root has no such user, so the sandbox refuses to start and says how to give it one.

import { statSync } from 'node:fs';
import { RalphError } from '../errors.js';

export interface AgentUser {
  uid: number;
  gid: number;
  /** ralph is root: the sandbox switches to this user (else it already is ralph's own). */
  switchTo: boolean;
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
