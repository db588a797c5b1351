// What started a fleet job, from GitHub's event (GITHUB_EVENT_NAME, and the payload at
// GITHUB_EVENT_PATH): for `issues: labeled`, the label and who added it, whose write access the
// job checks before anything runs. A dispatch (only writers can dispatch) and a local run carry
// no labeller; a schedule's job was listed by its sweep, which may be hours old by the time the
// job leaves the concurrency group.

import { readFileSync } from 'node:fs';

export type JobEvent = { kind: 'labeled'; label: string; sender: string } | { kind: 'dispatch' } | { kind: 'schedule' };

export function readJobEvent(env: NodeJS.ProcessEnv): JobEvent {
  if (env.GITHUB_EVENT_NAME === 'schedule') return { kind: 'schedule' };
  if (env.GITHUB_EVENT_NAME !== 'issues') return { kind: 'dispatch' };
  const path = env.GITHUB_EVENT_PATH ?? '';
  let payload: { action?: unknown; label?: { name?: unknown }; sender?: { login?: unknown } };
  try {
    payload = JSON.parse(readFileSync(path, 'utf8')) as typeof payload;
  } catch (error) {
    throw new Error(`could not read the issues event at GITHUB_EVENT_PATH (${path || 'unset'}): ${(error as Error).message}`, { cause: error });
  }
  const label = payload.label?.name;
  const sender = payload.sender?.login;
  // Without a labeller the job cannot check who asked: it is treated as nobody's request.
  return { kind: 'labeled', label: typeof label === 'string' ? label : '', sender: typeof sender === 'string' ? sender : '' };
}
