// A fleet job's work on its way to origin: the agent's commits folded into the job's one commit
// (its changes under .github/ held back unless the workflow opted in), pushed with retries; a
// push that still fails leaves the commits as a bundle for the artifact and says so.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deps } from '../platform/deps.js';
import * as jobGit from './job-git.js';
import { BUNDLE_NAME, type JobRecord } from './job-report.js';
import { withRetries } from './retry.js';

/** The work of one job and where it goes. */
export interface WorkPusher {
  issue: number;
  git: jobGit.JobGit;
  since: string;
  branch: string;
  deps: Deps;
  job: JobRecord;
  /** `.github/` of `since` as the job found it (jobGit.readHeldTree), put back before each commit; undefined: the workflow opted in to the agent's changes there. */
  heldTree: string | undefined;
  /** The index's entries under .ralph/ as the job found them (jobGit.readOwnEntries), put back before each commit. */
  ownEntries: string;
  /** undefined until pushed or given up. */
  pushed: boolean | undefined;
}

export async function pushWork(work: WorkPusher, message: string): Promise<void> {
  const { git, deps, job } = work;
  const committed = await jobGit.commitWork(git, message, { since: work.since, branch: work.branch, heldTree: work.heldTree, ownEntries: work.ownEntries });
  job.heldBack = committed.heldBack;
  if (committed.heldBack.length > 0) deps.logger.warn(`Held back the agent's changes under .github/ (not pushed): ${committed.heldBack.join(', ')}`);
  if (committed.committed) deps.logger.info("Committed the job's work");
  try {
    await withRetries(`push ${work.branch}`, () => jobGit.pushHead(git, work.branch), deps.clock, deps.logger);
    work.pushed = true;
  } catch (error) {
    work.pushed = false;
    deps.logger.error(`Could not push ${work.branch}: ${(error as Error).message}`);
    if (!committed.committed) return;
    // In the runner's temp folder, beside the artifact it is copied into (job-report.ts), which
    // then removes this folder.
    const base = deps.env.RUNNER_TEMP || tmpdir();
    mkdirSync(base, { recursive: true });
    const folder = mkdtempSync(join(base, 'ralph-fleet-bundle-'));
    const bundle = join(folder, 'ralph-issue-work.bundle');
    if (await jobGit.writeBundle(git, work.since, bundle)) {
      job.bundle = bundle;
      job.kept.push(`the job's commits as \`${BUNDLE_NAME}\` in the job's artifact (\`ralph-fleet logs ${work.issue}\` downloads it)`);
    } else {
      rmSync(folder, { recursive: true, force: true });
    }
  }
}
