// A cycle in a graph of dependencies (a plan's `(after: …)` clauses, a queue's issue
// dependencies), found by one depth-first walk. Pure.

/**
 * A cycle as the nodes around it with the first repeated at the end (`[a, b, a]`); undefined
 * when there is none. Nodes are walked in the map's order; an edge to a node that is not a key
 * of `edges` (a dependency outside the graph) cannot be part of a cycle.
 */
export function findCycle<K>(edges: ReadonlyMap<K, readonly K[]>): K[] | undefined {
  const done = new Set<K>();
  const path: K[] = [];
  const onPath = new Set<K>();
  const visit = (node: K): K[] | undefined => {
    if (onPath.has(node)) return [...path.slice(path.indexOf(node)), node];
    if (done.has(node) || !edges.has(node)) return undefined;
    path.push(node);
    onPath.add(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return undefined;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}
