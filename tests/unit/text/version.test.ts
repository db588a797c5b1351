import { describe, expect, it } from 'vitest';
import { compareVersions } from '../../../lib/text/version.js';

describe('compareVersions', () => {
  it('compares part by part, numerically', () => {
    expect(compareVersions('2.0.76', '2.0.100')).toBe(-1);
    expect(compareVersions('2.1.0', '2.0.76')).toBe(1);
    expect(compareVersions('2.0.76', '2.0.76')).toBe(0);
  });

  it('counts missing parts as 0', () => {
    expect(compareVersions('20.19', '20.19.0')).toBe(0);
    expect(compareVersions('22', '20.19.1')).toBe(1);
  });
});

describe('the Node check in cli/require-node.ts', () => {
  it('agrees with compareVersions (it must stand alone, so it repeats it)', async () => {
    const { isNodeVersionSupported } = await import('../../../lib/cli/require-node.js');
    const versions = ['20.19.0', '20.19.1', '20.2.0', '22.0.0', '18.20.8', '20.19'];
    for (const a of versions) for (const b of versions) expect(isNodeVersionSupported(a, b)).toBe(compareVersions(a, b) >= 0);
  });
});
