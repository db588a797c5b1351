// The files of a nested repository inside the project (`vendor/lib/`, with its own `.git`):
// git lists such a folder as one entry and ralph's git never enters it, so ralph lists its files
// itself, for the content snapshot to hash like any other (content-snapshot.ts). A folder is
// read again only when its own stat changed (an entry added, removed or renamed changes it);
// the files' content is checked through the snapshot's stat cache. `.git` is left out.

import { readdirSync, type Stats } from 'node:fs';
import type { SnapshotFs } from './content-entries.js';

interface FolderEntry {
  stat: { mtimeMs: number; ctimeMs: number; ino: number };
  files: string[];
  folders: string[];
}

export interface NestedWalker {
  /** The files below `dir` (project-relative, ending in `/`), project-relative; `stamp`: the filesystem's now (ms). */
  list(dir: string, stamp: number): string[];
}

export function createNestedWalker(projectDir: string, fs: Pick<SnapshotFs, 'lstatSync'>): NestedWalker {
  let cache = new Map<string, FolderEntry>();
  return {
    list(dir, stamp) {
      const next = new Map<string, FolderEntry>();
      const out: string[] = [];
      const visit = (rel: string): void => {
        const st = fs.lstatSync(`${projectDir}/${rel}`, { throwIfNoEntry: false });
        if (!st?.isDirectory()) return;
        const entry = sameFolder(cache.get(rel), st) ?? readFolder(`${projectDir}/${rel}`, st);
        // A folder changed in the same clock tick as the stamp may change again unseen: read it next time.
        if (st.mtimeMs < stamp && st.ctimeMs < stamp) next.set(rel, entry);
        for (const file of entry.files) out.push(rel + file);
        for (const folder of entry.folders) visit(`${rel}${folder}/`);
      };
      visit(dir);
      // Folders of the other nested repositories stay cached until their own walk.
      for (const [rel, entry] of cache) if (!rel.startsWith(dir)) next.set(rel, entry);
      cache = next;
      return out;
    },
  };
}

function sameFolder(entry: FolderEntry | undefined, st: Stats): FolderEntry | undefined {
  if (!entry) return undefined;
  const { mtimeMs, ctimeMs, ino } = entry.stat;
  return mtimeMs === st.mtimeMs && ctimeMs === st.ctimeMs && ino === st.ino ? entry : undefined;
}

function readFolder(full: string, st: Stats): FolderEntry {
  const files: string[] = [];
  const folders: string[] = [];
  try {
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (entry.name !== '.git') folders.push(entry.name);
      } else {
        files.push(entry.name);
      }
    }
  } catch {
    // Gone or unreadable since its stat: nothing listed.
  }
  files.sort();
  folders.sort();
  return { stat: { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino }, files, folders };
}
