// Reading one JSON state file: a missing file gives the default, a clearly unreadable one is set
// aside as `<name>.corrupt-<stamp>` with a warning and gives the default, never a crash.

import { existsSync, linkSync, renameSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { z } from 'zod';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';
import { isRalphError } from '../errors.js';
import { readRegularFile } from './control-file.js';
import { nameInOwnDirectory } from './no-follow.js';
import { parseJsonWithRawControls, parseLenientJson } from './lenient-json.js';
import { formatFileStamp } from './timestamps.js';

export interface StateReadOptions {
  logger: Logger;
  clock: Clock;
  /**
   * Salvage top-level fields from invalid JSON (status.json and progress.json, which the Bash
   * tool builds by hand with unescaped strings and writes in place). Default false.
   */
  lenient?: boolean;
  /** Move a corrupt file aside (default true). Read-only viewers such as the monitor pass false. */
  quarantine?: boolean;
}

/**
 * ok: parsed and valid · missing: absent or empty, fallback returned · recovered: invalid JSON
 * but enough fields salvaged (lenient only) · corrupt: unusable, fallback returned.
 */
export type StateReadStatus = 'ok' | 'missing' | 'recovered' | 'corrupt';

export interface StateReadResult<T> {
  value: T;
  status: StateReadStatus;
  /** Where a corrupt file was moved, when it was. */
  movedTo?: string;
}

export function readStateFile<S extends z.ZodType>(path: string, schema: S, fallback: z.infer<S>, options: StateReadOptions): StateReadResult<z.infer<S>> {
  const text = readTextOrUndefined(path, options);
  if (text === null) return { value: fallback, status: 'corrupt' };
  if (text === undefined) return { value: fallback, status: 'missing' };
  // A zod schema's safeParse gives its output type; TypeScript cannot see that through a generic S.
  const parsed = parseStateText(text, schema, options) as ParsedStateText<z.infer<S>>;
  switch (parsed.status) {
    case 'ok':
    case 'recovered':
      return { value: parsed.value, status: parsed.status };
    case 'missing':
      return { value: fallback, status: 'missing' };
    case 'corrupt':
      return { value: fallback, status: 'corrupt', movedTo: setAsideCorrupt(path, parsed.problem, options) };
  }
}

/** What a state file's text holds; a corrupt one says why, with the JSON object it holds if any. */
export type ParsedStateText<T> =
  | { status: 'ok' | 'recovered'; value: T }
  | { status: 'missing' }
  | { status: 'corrupt'; problem: string; found?: Record<string, unknown> };

/**
 * What parseStateText asks of a schema: a zod schema has it, and so can a check that does without
 * zod (the dashboard's, which reads fields one by one: lib/monitor/state-fields.ts).
 */
export interface StateTextCheck<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** The value a check gives for a text it accepts. */
export type StateCheckOutput<C extends StateTextCheck<unknown>> = Extract<ReturnType<C['safeParse']>, { success: true }>['data'];

/**
 * The text of one state file checked against its schema, without touching the file: readStateFile
 * builds on it, and the views (which hold the texts already) call it directly.
 */
export function parseStateText<C extends StateTextCheck<unknown>>(
  text: string,
  schema: C,
  options: Pick<StateReadOptions, 'lenient'>,
): ParsedStateText<StateCheckOutput<C>> {
  // An empty file is what an in-place writer (the Bash tool) leaves between truncate and write.
  if (text.trim() === '') return { status: 'missing' };
  let json: unknown;
  let strict = true;
  try {
    json = JSON.parse(text);
  } catch {
    // A control character inside a string is only a misspelling (the agent can write these
    // files): read as escaped, the value is whole; the views sanitize it before showing it.
    json = parseJsonWithRawControls(text);
    strict = false;
  }
  if (json === undefined) {
    const salvaged = options.lenient ? parseLenientJson(text) : undefined;
    const parsed = salvaged && schema.safeParse(salvaged);
    if (parsed && parsed.success) return { status: 'recovered', value: parsed.data };
    return { status: 'corrupt', problem: 'not valid JSON', ...(salvaged ? { found: salvaged } : {}) };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { status: strict ? 'ok' : 'recovered', value: parsed.data };
  const found = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  return { status: 'corrupt', problem: describeIssue(parsed.error), ...(found ? { found } : {}) };
}

/**
 * Renames `path` to `<path>.corrupt-<YYYYmmddTHHMMSS>` (adding `-1`, `-2`… rather than
 * overwriting an earlier copy) and logs a WARN naming the file. Returns the new path, or
 * undefined when the file could not be moved (or quarantine is off).
 */
export function setAsideCorrupt(path: string, problem: string, options: Pick<StateReadOptions, 'logger' | 'clock' | 'quarantine'>): string | undefined {
  const name = basename(path);
  if (options.quarantine === false) {
    options.logger.warn(`State file ${name} is unreadable (${problem}); using defaults`);
    return undefined;
  }
  const base = `${path}.corrupt-${formatFileStamp(options.clock.now())}`;
  for (let n = 0; n < 1000; n++) {
    const target = n === 0 ? base : `${base}-${n}`;
    const moved = moveWithoutOverwrite(path, target);
    if (moved === 'exists') continue;
    if (moved === 'moved') {
      options.logger.warn(`State file ${name} is unreadable (${problem}); moved it to ${basename(target)} and using defaults`);
      return target;
    }
    break;
  }
  options.logger.warn(`State file ${name} is unreadable (${problem}) and could not be moved aside; using defaults`);
  return undefined;
}

// link() refuses to replace an existing name, so two readers racing cannot clobber a copy. Both
// names are taken in the folder opened without following a link: one the agent made a link to
// a folder of its choosing gets nothing moved there.
function moveWithoutOverwrite(path: string, aside: string): 'moved' | 'exists' | 'failed' {
  let from: string;
  let to: string;
  try {
    from = nameInOwnDirectory(path);
    to = join(dirname(from), basename(aside));
  } catch {
    return 'failed';
  }
  try {
    linkSync(from, to);
    unlinkSync(from);
    return 'moved';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return 'exists';
    if (code === 'ENOENT') return 'failed';
  }
  // Filesystems without hard links: check, then rename.
  try {
    if (existsSync(to)) return 'exists';
    renameSync(from, to);
    return 'moved';
  } catch {
    return 'failed';
  }
}

/** The text, undefined when absent, null when present but unreadable (warned). */
function readTextOrUndefined(path: string, options: StateReadOptions): string | undefined | null {
  try {
    return readRegularFile(path);
  } catch (error) {
    if (isRalphError(error)) {
      options.logger.warn(`Cannot read state file ${basename(path)}: ${error.message}; using defaults`);
      return null;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    options.logger.warn(`Cannot read state file ${basename(path)} (${code ?? String(error)}); using defaults`);
    return null;
  }
}

function describeIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}
