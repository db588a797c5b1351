// What the loop's content measure covers beyond the project's own files: the folders the run
// may also work in (WORK_DIRS: a monorepo's shared library beside the project), each with a
// content snapshot of its own. The loop's content id covers all of them; with no folder beyond
// the project it is the project's id itself. Each folder keeps its own stat cache, so a loop
// costs what it changed. (Nested repositories inside the project are part of the project's own
// snapshot, content-snapshot.ts; control files an item asks for are evidence for that item only,
// loop-progress.ts.)

import { hashText } from '../platform/hash.js';
import type { ContentSnapshot, ContentSnapshotter } from './content-snapshot.js';

/** A folder beside the project, with its own snapshotter; `label` (its path from the project, ending in `/`) prefixes its paths. */
export interface ScopeFolder {
  label: string;
  snapshotter: ContentSnapshotter;
}

export interface ContentScope {
  folders: ScopeFolder[];
}

/** What a scoped snapshot was made of, to name the changed paths between two. */
interface ScopeParts {
  project: ContentSnapshot;
  folders: ContentSnapshot[];
}

/** The project's snapshotter widened to the scope; the project's alone when the scope adds nothing. */
export function scopedSnapshotter(project: ContentSnapshotter, scope: ContentScope): ContentSnapshotter {
  const parts = new WeakMap<ContentSnapshot, ScopeParts>();
  return {
    async take() {
      const own = await project.take();
      if (scope.folders.length === 0) return own;
      const folders = await Promise.all(scope.folders.map((f) => f.snapshotter.take()));
      const id = own.id === null ? null : hashText([own.id, ...folders.map((f, i) => `${scope.folders[i]!.label}\0${f.id ?? 'unmeasured'}`)].join('\n'), 40);
      const snapshot: ContentSnapshot = { id };
      parts.set(snapshot, { project: own, folders });
      return snapshot;
    },
    async changedPaths(from, to) {
      const a = parts.get(from);
      const b = parts.get(to);
      if (!a || !b) return project.changedPaths(from, to);
      const changed = [...(await project.changedPaths(a.project, b.project))];
      for (const [i, folder] of scope.folders.entries()) {
        const [x, y] = [a.folders[i], b.folders[i]];
        if (x && y) changed.push(...(await folder.snapshotter.changedPaths(x, y)).map((path) => folder.label + path));
      }
      return changed;
    },
  };
}
