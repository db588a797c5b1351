// The plain-JavaScript SHA-256 behind the ledger's folder names: the standard digest (the same
// as node:crypto's for any text, so a ledger named before is found), cut to the length asked.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../lib/platform/sha256.js';

const nodeSha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 test vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('equals node:crypto for texts of every length around the 64-byte blocks, and any Unicode', () => {
    for (let length = 0; length <= 200; length++)
      expect(sha256Hex('é'.repeat(length % 3) + 'x'.repeat(length))).toBe(nodeSha256('é'.repeat(length % 3) + 'x'.repeat(length)));
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => sha256Hex(text) === nodeSha256(text)),
      { numRuns: 500 },
    );
  });

  it('cuts the hex digest to the length asked', () => {
    expect(sha256Hex('abc', 12)).toBe('ba7816bf8f01');
  });
});
