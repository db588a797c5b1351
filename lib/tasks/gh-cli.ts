// The GitHub CLI as a task source: readiness (installed, authenticated) and running `gh`
// with an argv array. Shared by ralph-enable's GitHub tasks and ralph-import's issue flow.

import { firstOutputLine, runExternalCli, type ExternalCliOptions } from './external-cli.js';
import { taskSourceFailure, type TaskSourceResult } from './task-source-result.js';

export const GH_TOOL = {
  cmd: 'gh',
  label: 'GitHub CLI (gh)',
  installHint: 'install it from https://cli.github.com/ and run: gh auth login',
};

export type GhOutcome = { ok: true; stdout: string } | { ok: false; failure: Extract<TaskSourceResult, { ok: false }> };

/** `gh auth status`: installed and logged in. */
export async function checkGhReady(options: ExternalCliOptions): Promise<GhOutcome> {
  const outcome = await runExternalCli(GH_TOOL, ['auth', 'status'], options);
  if (!outcome.ok) return outcome;
  if (outcome.result.code !== 0) {
    return {
      ok: false,
      failure: taskSourceFailure('unauthenticated', 'GitHub CLI (gh) is not authenticated', 'run: gh auth login'),
    };
  }
  return { ok: true, stdout: outcome.result.stdout };
}

/** Runs `gh <args>`; a non-zero exit becomes a failure carrying gh's own message. */
export async function runGh(args: readonly string[], options: ExternalCliOptions): Promise<GhOutcome> {
  const outcome = await runExternalCli(GH_TOOL, args, options);
  if (!outcome.ok) return outcome;
  if (outcome.result.code !== 0) {
    return { ok: false, failure: taskSourceFailure('failed', `gh ${args.slice(0, 2).join(' ')} failed: ${firstOutputLine(outcome.result)}`) };
  }
  return { ok: true, stdout: outcome.result.stdout };
}

/**
 * Parses `gh api --paginate` output: one JSON array per page printed back to back
 * (`[...][...]`), which JSON.parse cannot read as a whole.
 */
export function parseConcatenatedJsonArrays(text: string): unknown[] {
  const items: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === ']' || ch === '}') {
      depth--;
      if (depth === 0 && start >= 0) {
        const value: unknown = JSON.parse(text.slice(start, i + 1));
        if (Array.isArray(value)) items.push(...value);
        else items.push(value);
        start = -1;
      }
    }
  }
  return items;
}
