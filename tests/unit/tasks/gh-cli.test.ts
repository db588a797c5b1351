import { describe, expect, it } from 'vitest';
import { parseConcatenatedJsonArrays } from '../../../lib/tasks/gh-cli.js';

describe('parseConcatenatedJsonArrays', () => {
  it('reads the pages `gh api --paginate` prints back to back', () => {
    expect(parseConcatenatedJsonArrays('[{"n":1},{"n":2}][{"n":3}]\n')).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('is not confused by brackets and quotes inside strings', () => {
    expect(parseConcatenatedJsonArrays('[{"t":"a ] [ \\" }"}][]')).toEqual([{ t: 'a ] [ " }' }]);
  });

  it('returns nothing for empty output and throws on broken JSON', () => {
    expect(parseConcatenatedJsonArrays('')).toEqual([]);
    expect(() => parseConcatenatedJsonArrays('[{"a":}]')).toThrow();
  });
});
