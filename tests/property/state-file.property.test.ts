// Property tests of the state-file reader: whatever bytes the agent writes into status.json,
// progress.json or .circuit_breaker_state, reading them never throws, and an object whose
// strings hold raw control characters is read back with those strings intact.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStateText } from '../../lib/state/state-file.js';
import { circuitBreakerFileSchema, progressFileSchema, statusFileSchema } from '../../lib/state/schemas.js';

const RUNS = 300;
const SCHEMAS = [statusFileSchema, progressFileSchema, circuitBreakerFileSchema];

// JSON.stringify, then every escaped control character written raw, as a careless writer would.
const withRawControls = (value: unknown) =>
  JSON.stringify(value).replace(/\\u00([01][0-9a-f])|\\([nrtbf])/g, (_, hex: string | undefined, letter: string | undefined) =>
    hex ? String.fromCharCode(parseInt(hex, 16)) : ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[letter!]!,
  );

describe('parseStateText', () => {
  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.boolean(), (text, lenient) => {
        for (const schema of SCHEMAS) expect(() => parseStateText(text, schema, { lenient })).not.toThrow();
      }),
      { numRuns: RUNS },
    );
  });

  it('reads strings with raw control characters back whole, lenient or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.boolean(), (reason, lenient) => {
        const text = withRawControls({ state: 'OPEN', consecutive_no_progress: 2, reason });
        const parsed = parseStateText(text, circuitBreakerFileSchema, { lenient });
        expect(parsed.status === 'ok' || parsed.status === 'recovered').toBe(true);
        if (parsed.status === 'ok' || parsed.status === 'recovered') expect(parsed.value.reason).toBe(reason);
      }),
      { numRuns: RUNS },
    );
  });
});
