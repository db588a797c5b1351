import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialSameFailures } from '../../../lib/verify/verification.js';
import { nextSameFailures } from '../../../lib/verify/same-failures.js';
import { addObservation, capRawText, MAX_OBSERVATIONS, MAX_RAW_BYTES, recordVerification } from '../../../lib/run-record/observations.js';
import { startAttempt } from '../../../lib/run-record/attempts.js';
import { runRecordSchema } from '../../../lib/run-record/record-schema.js';
import type { VerificationResult } from '../../../lib/verify/verification-result.js';
import { newRecord, T0 } from './record-fixture.js';

describe('capRawText', () => {
  it('keeps text under the cap as it is', () => {
    expect(capRawText('hello')).toEqual({ text: 'hello', truncated: false, bytes: 5 });
  });

  it('keeps the head and the tail of longer output within 16 KiB and says how much was cut', () => {
    const text = `HEAD-START\n${'x'.repeat(40_000)}\nTAIL-END: 1 failed`;
    const capped = capRawText(text);
    expect(capped.truncated).toBe(true);
    expect(capped.bytes).toBe(Buffer.byteLength(text));
    expect(Buffer.byteLength(capped.text)).toBeLessThanOrEqual(MAX_RAW_BYTES);
    expect(capped.text.startsWith('HEAD-START')).toBe(true);
    expect(capped.text.endsWith('TAIL-END: 1 failed')).toBe(true);
    expect(capped.text).toMatch(/…\[\d+ bytes cut\]…/);
  });

  it('stays within the cap and never splits a character (property)', () => {
    const unit = fc.constantFrom('a', 'é', '😀', '\n', '中');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 3000 }), fc.integer({ min: 256, max: 4096 }), (text, max) => {
        const capped = capRawText(text, max);
        expect(Buffer.byteLength(capped.text)).toBeLessThanOrEqual(max);
        expect(capped.text).not.toContain('\uFFFD');
        if (!capped.truncated) expect(capped.text).toBe(text);
      }),
    );
  });
});

describe('addObservation', () => {
  it('stores source, command, exit code, duration, capped raw text and data', () => {
    const record = addObservation(newRecord(), {
      loop: 2,
      now: T0,
      source: 'test',
      command: 'npm test',
      exitCode: 1,
      durationMs: 1234.6,
      raw: 'y'.repeat(20_000),
      data: { failed: 1 },
    });
    expect(record.observations[0]).toMatchObject({
      loop: 2,
      source: 'test',
      command: 'npm test',
      exit_code: 1,
      duration_ms: 1235,
      truncated: true,
      raw_bytes: 20_000,
      data: { failed: 1 },
    });
    expect(runRecordSchema.safeParse(record).success).toBe(true);
  });

  it('keeps the newest MAX_OBSERVATIONS and counts the dropped ones', () => {
    let record = newRecord();
    for (let i = 0; i < MAX_OBSERVATIONS + 5; i++) {
      record = addObservation(record, { loop: i, now: T0, source: 'agent', exitCode: 0, durationMs: 1, raw: `obs ${i}` });
    }
    expect(record.observations).toHaveLength(MAX_OBSERVATIONS);
    expect(record.observations[0]!.raw).toBe('obs 5');
    expect(record.observations_dropped).toBe(5);
  });
});

describe('recordVerification', () => {
  it('adds one observation per command and the result as the last verification', () => {
    const result: VerificationResult = {
      status: 'failed',
      passed: 1,
      failed: 1,
      skipped: 0,
      durationMs: 900,
      failures: [{ name: 'sum.spec.ts > sum > adds two numbers', message: 'expected -1 to be 3' }],
      failuresOmitted: 0,
      commands: [
        {
          command: 'npm test',
          role: 'test',
          status: 'failed',
          exitCode: 1,
          signal: null,
          timedOut: false,
          durationMs: 800,
          format: 'vitest-json',
          passed: 1,
          failed: 1,
          skipped: 0,
          failures: [{ name: 'sum.spec.ts > sum > adds two numbers', message: 'expected -1 to be 3' }],
          failuresOmitted: 0,
          output: 'FAIL ...',
        },
        {
          command: 'npm run lint',
          role: 'quality-gate',
          status: 'passed',
          exitCode: 0,
          signal: null,
          timedOut: false,
          durationMs: 100,
          format: 'exit-code',
          passed: 0,
          failed: 0,
          skipped: 0,
          failures: [],
          failuresOmitted: 0,
          output: '',
        },
      ],
    };
    const same = nextSameFailures(initialSameFailures(), result);
    const record = recordVerification(startAttempt(newRecord(), 1, T0), { loop: 1, now: T0, result, sameFailures: same });
    expect(record.observations.map((o) => [o.source, o.command, o.exit_code])).toEqual([
      ['test', 'npm test', 1],
      ['quality-gate', 'npm run lint', 0],
    ]);
    expect(record.observations[0]!.data).toMatchObject({ format: 'vitest-json', failed: 1, failures: [{ name: 'sum.spec.ts > sum > adds two numbers' }] });
    expect(record.last_verification).toMatchObject({
      loop: 1,
      status: 'failed',
      failed: 1,
      failures: [{ name: 'sum.spec.ts > sum > adds two numbers', message: 'expected -1 to be 3' }],
      commands: [
        { command: 'npm test', role: 'test', status: 'failed' },
        { command: 'npm run lint', role: 'quality-gate', status: 'passed' },
      ],
      signature: same.signature,
      same_failures_count: 1,
    });
    expect(runRecordSchema.safeParse(record).success).toBe(true);
  });
});
