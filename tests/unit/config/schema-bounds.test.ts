// Every numeric key of the config schema has an upper bound, and a value above it is an error
// that states the range.

import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, CONFIG_SCHEMA, coerceConfigValue } from '../../../lib/config/schema.js';

const NUMERIC = CONFIG_KEYS.filter((key) => CONFIG_SCHEMA[key].type === 'int' || CONFIG_SCHEMA[key].type === 'number');

describe('numeric config bounds', () => {
  it('every numeric key has a finite minimum and maximum', () => {
    const unbounded = NUMERIC.filter((key) => !Number.isFinite(CONFIG_SCHEMA[key].min) || !Number.isFinite(CONFIG_SCHEMA[key].max));
    expect(unbounded).toEqual([]);
  });

  for (const key of NUMERIC) {
    it(`${key}: its maximum is accepted, one more and 1e23 are refused with the range`, () => {
      const { max, min } = CONFIG_SCHEMA[key];
      expect(coerceConfigValue(key, String(max))).toEqual({ ok: true, value: max });
      const above = coerceConfigValue(key, String(max! + 1));
      expect(above.ok).toBe(false);
      expect(above.ok ? '' : above.message).toContain(`from ${min} to ${max}`);
      expect(coerceConfigValue(key, '99999999999999999999999').ok).toBe(false);
    });
  }
});
