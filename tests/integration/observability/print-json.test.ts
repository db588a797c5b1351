// printJson / --jq with the real jq-wasm: pretty output as `jq .` prints it, strings raw like
// `gh --jq`, several results one per line, and filter errors as clear RalphErrors (exit 1)
// that do not leak jq's exit status into the process.

import { describe, expect, it } from 'vitest';
import { printJson } from '../../../lib/cli/print-json.js';
import { RalphError } from '../../../lib/errors.js';

const STATE = { status: 'halted', loop_count: 3, breaker: { state: 'OPEN' }, list: [1, 2], avg: 14.2 };

async function print(value: unknown, jq?: string): Promise<string> {
  let out = '';
  await printJson(value, jq, (t) => {
    out += t;
  });
  return out;
}

async function failure(jq: string): Promise<RalphError> {
  const error = await print(STATE, jq).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RalphError);
  return error as RalphError;
}

describe('printJson', () => {
  it('prints pretty JSON with a 2-space indent without a filter', async () => {
    expect(await print({ total_loops: 5, avg_duration: 14.2 })).toBe('{\n  "total_loops": 5,\n  "avg_duration": 14.2\n}\n');
  });

  it.each([
    ['.status', 'halted\n'],
    ['.loop_count', '3\n'],
    ['.breaker', '{\n  "state": "OPEN"\n}\n'],
    ['.list[]', '1\n2\n'],
    ['.avg', '14.2\n'],
    ['.missing', 'null\n'],
    ['empty', ''],
    ['{s: .status, n: .loop_count}', '{\n  "s": "halted",\n  "n": 3\n}\n'],
  ])('--jq %s', async (filter, expected) => {
    expect(await print(STATE, filter)).toBe(expected);
  });

  it('reports a filter that does not compile', async () => {
    const error = await failure('.[');
    expect(error.code).toBe('bad_jq_filter');
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe("Invalid --jq filter '.[': syntax error, unexpected end of file at <top-level>, line 1");
    expect(error.hint).toContain('--jq .status');
  });

  it('reports a filter that fails on the data', async () => {
    const error = await failure('.loop_count.x');
    expect(error.code).toBe('jq_failed');
    expect(error.message).toBe('--jq filter \'.loop_count.x\' failed: Cannot index number with string "x"');
  });

  it('rejects an empty filter', async () => {
    expect((await failure('  ')).message).toBe('--jq needs a filter');
  });

  it('keeps the process exit code as it was', async () => {
    const before = process.exitCode;
    await failure('.[');
    await print(STATE, '.status');
    expect(process.exitCode).toBe(before);
  });
});
