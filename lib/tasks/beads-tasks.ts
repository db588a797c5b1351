// beads (`bd`) issues as tasks: `bd list --json`, closed and id-less items
// skipped, `- [ ] [<id>] <title>`; when bd prints no usable JSON (older versions), its text
// listing is parsed instead: id = first `word-id`, title = text after the last " - ".

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { firstOutputLine, runExternalCli, type ExternalCliOptions } from './external-cli.js';
import { formatTaskLine, type TaskItem } from './task-line.js';
import { taskSourceFailure, type TaskSourceResult } from './task-source-result.js';

export type BeadsStatusFilter = 'open' | 'in_progress' | 'all';

export interface BeadsTaskOptions extends ExternalCliOptions {
  status?: BeadsStatusFilter;
  /** Maximum number of issues; 0 = all. */
  limit: number;
}

export const BD_TOOL = {
  cmd: 'bd',
  label: 'beads CLI (bd)',
  installHint: 'install beads (https://github.com/steveyegge/beads) so that `bd` is on PATH',
};

export function hasBeadsDirectory(projectDir: string): boolean {
  const dir = join(projectDir, '.beads');
  return existsSync(dir) && statSync(dir).isDirectory();
}

export async function fetchBeadsTasks(options: BeadsTaskOptions): Promise<TaskSourceResult> {
  if (!hasBeadsDirectory(options.cwd)) {
    return taskSourceFailure('not-configured', 'no .beads/ directory in this project', 'run: bd init');
  }
  const status = options.status ?? 'open';
  const statusArgs = status === 'all' ? ['--all'] : ['--status', status];
  const json = await runExternalCli(BD_TOOL, ['list', '--json', '--limit', String(options.limit), ...statusArgs], options);
  if (!json.ok) return json.failure;
  const fromJson = json.result.code === 0 ? parseBeadsJson(json.result.stdout) : undefined;
  if (fromJson !== undefined) return { ok: true, tasks: fromJson.map(formatTaskLine) };

  const text = await runExternalCli(BD_TOOL, ['list', '--limit', String(options.limit), ...statusArgs], options);
  if (!text.ok) return text.failure;
  if (text.result.code !== 0) {
    return taskSourceFailure('failed', `bd list failed: ${firstOutputLine(text.result)}`);
  }
  return { ok: true, tasks: parseBeadsText(text.result.stdout).map(formatTaskLine) };
}

/** Count of non-closed beads issues for the wizard; undefined when bd is not usable. */
export async function countBeadsIssues(options: ExternalCliOptions): Promise<number | undefined> {
  if (!hasBeadsDirectory(options.cwd)) return undefined;
  const outcome = await runExternalCli(BD_TOOL, ['list', '--json', '--limit', '0'], options);
  if (!outcome.ok || outcome.result.code !== 0) return undefined;
  return parseBeadsJson(outcome.result.stdout)?.length;
}

/** Items from `bd list --json`; undefined when the output is not a JSON array. */
export function parseBeadsJson(stdout: string): TaskItem[] | undefined {
  if (stdout.trim() === '') return undefined;
  let list: unknown;
  try {
    list = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (!Array.isArray(list)) return undefined;
  const items: TaskItem[] = [];
  for (const entry of list as Array<Record<string, unknown> | null>) {
    if (entry === null || typeof entry !== 'object') continue;
    const { id, title, status } = entry;
    if (status === 'closed') continue;
    if (typeof id !== 'string' || id.trim() === '' || typeof title !== 'string' || title.trim() === '') continue;
    items.push({ id, title });
  }
  return items;
}

const BEADS_ID = /[a-z]+-[a-z0-9]+/;

/** Items from bd's human listing, e.g. `bd-a1 [P1] [task] open - Fix the login`. */
export function parseBeadsText(stdout: string): TaskItem[] {
  const items: TaskItem[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const id = BEADS_ID.exec(line)?.[0];
    const separator = line.lastIndexOf(' - ');
    if (!id || separator < 0) continue;
    if (/\bclosed\b/.test(line.slice(0, separator))) continue;
    const title = line.slice(separator + 3).trim();
    if (title) items.push({ id, title });
  }
  return items;
}
