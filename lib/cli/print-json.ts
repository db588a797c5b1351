// Every command that prints JSON prints it here: pretty (2-space indent, as `jq .` does), or
// filtered by `--jq <filter>`, which runs jq in-process (jq-wasm) so no system jq is needed.
// Like `gh --jq`, a string result prints raw (no quotes); other results print as JSON.

import { RalphError } from '../errors.js';

export type WriteText = (text: string) => void;

export async function printJson(value: unknown, jqFilter: string | undefined, write: WriteText): Promise<void> {
  if (jqFilter === undefined) {
    write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const output = await runJqFilter(value, jqFilter);
  if (output !== '') write(`${output}\n`);
}

/** jq's output for `filter` over `value` (strings raw), without its trailing newline. */
export async function runJqFilter(value: unknown, filter: string): Promise<string> {
  if (filter.trim() === '') {
    throw new RalphError('bad_jq_filter', '--jq needs a filter', { hint: 'for example: --jq .status' });
  }
  const { raw } = await import('jq-wasm');
  // jq-wasm reports jq's exit status through process.exitCode; keep ours.
  const exitCode = process.exitCode;
  try {
    return await raw(JSON.stringify(value), filter, ['-r']);
  } catch (error) {
    throw jqError(filter, error);
  } finally {
    process.exitCode = exitCode;
  }
}

function jqError(filter: string, error: unknown): RalphError {
  const text = (error instanceof Error ? error.message : String(error)).replace(/^Failed to execute raw query:\s*/, '');
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const first = (lines[0] ?? 'unknown error')
    .replace(/^jq: error(?: \(at [^)]*\))?:\s*/, '')
    .replace(/\s*\(Unix shell quoting issues\?\)/, '')
    .replace(/:$/, '');
  if (/compile error/.test(text)) {
    return new RalphError('bad_jq_filter', `Invalid --jq filter '${filter}': ${first}`, {
      hint: 'check the filter syntax (jq language); for example: --jq .status',
    });
  }
  return new RalphError('jq_failed', `--jq filter '${filter}' failed: ${first}`, {
    hint: 'check that the filter fits the JSON; print it without --jq to see it',
  });
}
