import { describe, expect, it } from 'vitest';
import { findAddedMarkers } from '../../../lib/plan/added-markers.js';

const DIFF = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,0 +2,3 @@',
  '+const x = 1; // todo: handle the empty case  ',
  '+plain line',
  '+++ not a header: FIXME keep',
  '-// TODO: a removed line is no follow-up',
  'diff --git a/docs/b.md b/docs/b.md',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/docs/b.md',
  '@@ -0,0 +1,2 @@',
  '+HACK around it, then XXX',
  '+const x = 1; // todo: handle the empty case',
].join('\n');

describe('findAddedMarkers', () => {
  it('lists each added TODO/FIXME/HACK/XXX line from its first marker, with its file', () => {
    expect(findAddedMarkers(DIFF)).toEqual([
      'src/a.ts: todo: handle the empty case',
      'src/a.ts: FIXME keep',
      'docs/b.md: HACK around it, then XXX',
      'docs/b.md: todo: handle the empty case',
    ]);
  });

  it('says nothing for a diff without markers or an empty one', () => {
    expect(findAddedMarkers('')).toEqual([]);
    expect(findAddedMarkers('diff --git a/x b/x\n+++ b/x\n@@ -0,0 +1 @@\n+fine\n')).toEqual([]);
  });

  it('deduplicates the same marker in the same file', () => {
    const twice = 'diff --git a/x b/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+TODO: one\n+TODO: one\n';
    expect(findAddedMarkers(twice)).toEqual(['x: TODO: one']);
  });
});
