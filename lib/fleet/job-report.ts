// What a fleet job says on its issue when it cannot finish (what failed, what was kept where,
// how to resume) or halts (why, and what to do), and what it keeps for the artifact: the logs,
// the run record and status.json copied as regular files, with the bundle of a failed push.

import { closeSync, constants, copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Deps } from '../platform/deps.js';
import { isRefusedWrite, openNoFollow } from '../state/no-follow.js';
import { HELP_LABEL } from './fleet-labels.js';
import { addLabel, commentOn, type GhCli } from './job-gh.js';
import * as jobGit from './job-git.js';
import { ARTIFACT_DIR_NAME } from './workflow.js';

/** The name of the job's commits in the artifact, when its push failed. */
export const BUNDLE_NAME = 'work.bundle';

/** What a job did that its last word on the issue tells. */
export interface JobRecord {
  /** The labeller was checked: from here on, a failure is reported on the issue. */
  checked: boolean;
  /** Files under .github/ the agent changed that were not pushed. */
  heldBack: string[];
  /** What was kept where, for the report of a failure. */
  kept: string[];
  /** The job's commits as a bundle, when its push failed (copied into the artifact). */
  bundle?: string;
}

export function heldBackNote(heldBack: readonly string[]): string {
  if (heldBack.length === 0) return '';
  return `\n\nHeld back (the agent changed files under \`.github/\`, which a job pushes only when the workflow was written with \`ralph-fleet init --allow-workflow-changes\`): ${heldBack.map((file) => `\`${file}\``).join(', ')}.`;
}

/** A job that could not finish its work: what failed, what was kept where, how to resume. */
export async function reportFailure(issue: number, what: string, job: JobRecord, cli: GhCli, log: Deps['logger'], cost = ''): Promise<void> {
  const kept =
    job.kept.length > 0
      ? job.kept.map((item) => `- ${item}`)
      : [`- the branch \`${jobGit.workBranchOf(issue)}\` and the run's state on origin as the last job left them`];
  const body = [
    `ralph's job stopped before it could finish: ${what}.`,
    '',
    'Kept:',
    ...kept,
    `- the job's logs and run record in its artifact (\`ralph-fleet logs ${issue}\`)`,
    '',
    job.bundle
      ? `To resume: download the artifact (\`ralph-fleet logs ${issue}\`), then \`git fetch <artifact>/${BUNDLE_NAME} HEAD && git push origin FETCH_HEAD:refs/heads/${jobGit.workBranchOf(issue)}\`, and \`ralph-fleet start ${issue}\`.`
      : `To resume: \`ralph-fleet start ${issue}\`.`,
    heldBackNote(job.heldBack).trim(),
    '',
    cost,
  ]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd();
  await warnIfFailed(log, commentOn(issue, body, cli), 'comment');
  await warnIfFailed(log, addLabel(issue, HELP_LABEL, cli), `add the label ${HELP_LABEL}`);
}

export async function reportHalt(issue: number, why: string, heldBack: string, cost: string, cli: GhCli, log: Deps['logger']): Promise<void> {
  const body = [
    `ralph stopped without finishing this issue: ${why}.`,
    '',
    `The work so far is on branch \`${jobGit.workBranchOf(issue)}\`.`,
    `What to do: read the job's logs (\`ralph-fleet logs ${issue}\`), make the issue clearer or raise the budget, then remove the label \`${HELP_LABEL}\` and run \`ralph-fleet start ${issue}\`.${heldBack}`,
    '',
    cost,
  ].join('\n');
  await warnIfFailed(log, commentOn(issue, body, cli), 'comment');
  await warnIfFailed(log, addLabel(issue, HELP_LABEL, cli), `add the label ${HELP_LABEL}`);
}

export async function warnIfFailed(log: Deps['logger'], call: Promise<{ ok: boolean; message?: string }>, what: string): Promise<void> {
  const result = await call;
  if (!result.ok) log.warn(`Could not ${what} on GitHub: ${result.message ?? 'gh failed'}`);
}

/**
 * What the artifact keeps: the logs, the run record and status.json, copied as regular files
 * into the runner's temp folder (a link the agent left under .ralph/ is not followed: the upload
 * would read what it points to), with the bundle of a failed push. Only on a runner.
 */
export function keepArtifactFiles(projectDir: string, env: NodeJS.ProcessEnv, job: JobRecord, log: Deps['logger']): void {
  if (!env.RUNNER_TEMP) return;
  const out = join(env.RUNNER_TEMP, ARTIFACT_DIR_NAME);
  try {
    copyRegularFiles(join(projectDir, '.ralph'), join(out, '.ralph'), ['logs', 'sessions', 'status.json']);
    if (job.bundle) copyFileSync(job.bundle, join(out, BUNDLE_NAME));
  } catch (error) {
    log.warn(`Could not copy the logs for the artifact: ${(error as Error).message}`);
  } finally {
    // The bundle's own folder (job-push.ts): the artifact holds its copy.
    if (job.bundle) rmSync(dirname(job.bundle), { recursive: true, force: true });
  }
}

function copyRegularFiles(from: string, to: string, names?: readonly string[]): void {
  let entries: string[];
  try {
    entries = names ? [...names] : readdirSync(from);
  } catch {
    return;
  }
  for (const name of entries) {
    const source = join(from, name);
    let stat;
    try {
      stat = lstatSync(source);
    } catch {
      continue;
    }
    if (stat.isDirectory()) copyRegularFiles(source, join(to, name));
    else if (stat.isFile()) copyOneFile(source, join(to, name));
  }
}

// Read without following a link, and only a regular file with one name: a file swapped for a
// link (or a hard link to another file) since it was listed is left out.
function copyOneFile(source: string, target: string): void {
  let data: Buffer;
  try {
    const fd = openNoFollow(source, constants.O_RDONLY);
    try {
      data = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (isRefusedWrite(error)) return;
    throw error;
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, data, { flag: 'wx' });
}
