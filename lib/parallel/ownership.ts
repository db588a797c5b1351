// ralph run as root (CI, a container) on a project an ordinary user owns: the sandboxes run each
// unit's agent as that user, so what ralph makes as root in the project — a unit's worktree and
// its seeded .ralph/, the worktree's git admin folder, the branch's ref and reflog, object
// folders, the files a merge writes — is handed to the project's owner, or the agent could not
// write its worktree nor commit there, and the owner could not go on with git afterwards. Only
// what root owns is changed, no link is followed and no hard-linked file given
// (sandbox/agent-user.ts), so nothing outside the project can be reached through one.

import { resolve } from 'node:path';
import { giveRootOwnedTo, ownerOfRootRun } from '../sandbox/agent-user.js';
import { runGit, type GitContext } from './git.js';

export interface Owner {
  uid: number;
  gid: number;
}

/** Hands what root owns under `paths` to `owner`; the failure when it could not. */
export function handBack(owner: Owner, paths: string[]): string | undefined {
  try {
    for (const path of paths) giveRootOwnedTo(path, owner);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The hand-back of one parallel run: the project folder and the repository's common git folder
 * (outside the project when the project is itself a worktree), after each step that made
 * something there as root. A no-op unless ralph is root on a project an ordinary user owns; a
 * failure is said once.
 */
export class OwnerHandBack {
  private readonly owner: Owner | undefined;
  private paths: string[] | undefined;
  private warned = false;

  constructor(
    private readonly projectDir: string,
    private readonly git: GitContext,
    private readonly warn: (message: string) => void,
  ) {
    this.owner = ownerOfRootRun(projectDir);
  }

  async handBack(): Promise<void> {
    if (!this.owner) return;
    if (!this.paths) {
      const common = await runGit(this.git, this.projectDir, ['rev-parse', '--git-common-dir']);
      const dir = resolve(this.projectDir, common.stdout.trim() || '.git');
      this.paths = dir.startsWith(this.projectDir + '/') ? [this.projectDir] : [this.projectDir, dir];
    }
    const failed = handBack(this.owner, this.paths);
    if (failed && !this.warned) {
      this.warned = true;
      this.warn(`ralph runs as root: what it made in the project could not be handed to its owner (uid ${this.owner.uid}): ${failed}`);
    }
  }
}
