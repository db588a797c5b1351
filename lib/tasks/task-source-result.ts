// What a task source returns: the task lines, or why it could not deliver them. A missing or
// unauthenticated CLI is an expected outcome (a value), so each command decides how loud to be.

export type TaskSourceFailure = 'missing-tool' | 'unauthenticated' | 'not-configured' | 'file-not-found' | 'failed';

export type TaskSourceResult =
  | { ok: true; tasks: string[]; /** Why there are none, when that is worth saying (a PRD in a format ralph does not read). */ note?: string }
  | { ok: false; reason: TaskSourceFailure; message: string; hint?: string };

export function taskSourceFailure(reason: TaskSourceFailure, message: string, hint?: string): Extract<TaskSourceResult, { ok: false }> {
  return hint === undefined ? { ok: false, reason, message } : { ok: false, reason, message, hint };
}
