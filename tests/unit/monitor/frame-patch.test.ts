import { describe, expect, it } from 'vitest';
import { buildFramePatch } from '../../../lib/monitor/frame-patch.js';

describe('buildFramePatch', () => {
  it('writes nothing when the frame did not change', () => {
    expect(buildFramePatch(['a', 'b'], ['a', 'b'])).toBe('');
  });

  it('rewrites only the changed lines, in place, without clearing the screen', () => {
    expect(buildFramePatch(['a', 'b', 'c'], ['a', 'B', 'c'])).toBe('\x1b[2;1HB\x1b[K');
  });

  it('draws every line of a first frame', () => {
    expect(buildFramePatch([], ['x', 'y'])).toBe('\x1b[1;1Hx\x1b[K\x1b[2;1Hy\x1b[K');
  });

  it('blanks lines a shorter frame no longer has', () => {
    expect(buildFramePatch(['a', 'b', 'c'], ['a'])).toBe('\x1b[2;1H\x1b[K\x1b[3;1H\x1b[K');
  });
});
