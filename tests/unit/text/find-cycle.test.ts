import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findCycle } from '../../../lib/text/find-cycle.js';

describe('findCycle', () => {
  it('names the nodes around a cycle, the first repeated at the end', () => {
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', []],
        ]),
      ),
    ).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(new Map([[5, [5]]]))).toEqual([5, 5]);
  });

  it('starts the cycle where the walk enters it, not at the first node', () => {
    expect(
      findCycle(
        new Map([
          ['x', ['y']],
          ['y', ['z']],
          ['z', ['y']],
        ]),
      ),
    ).toEqual(['y', 'z', 'y']);
  });

  it('finds none in a diamond, nor through a node outside the graph', () => {
    expect(
      findCycle(
        new Map([
          [1, [2, 3]],
          [2, [4]],
          [3, [4]],
          [4, [99]],
        ]),
      ),
    ).toBeUndefined();
    expect(
      findCycle(
        new Map([
          ['a', ['gone']],
          ['gone-too', ['a']],
        ]),
      ),
    ).toBeUndefined();
  });

  it('agrees with a check by brute force: every step of a cycle it names is an edge, and a graph it passes has a topological order', () => {
    const graph = fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 })), { maxLength: 8 });
    fc.assert(
      fc.property(graph, (pairs) => {
        const edges = new Map(pairs);
        const cycle = findCycle(edges);
        if (cycle) {
          expect(cycle[0]).toBe(cycle.at(-1));
          for (let i = 0; i + 1 < cycle.length; i++) expect(edges.get(cycle[i]!)).toContain(cycle[i + 1]);
          return;
        }
        // No cycle: removing nodes with no dependency left inside the graph empties it.
        const left = new Map(edges);
        let removed = true;
        while (removed) {
          removed = false;
          for (const [node, deps] of left) {
            if (deps.every((dep) => !left.has(dep) || dep === undefined)) {
              left.delete(node);
              removed = true;
            }
          }
        }
        expect(left.size).toBe(0);
      }),
    );
  });
});
