// Git projects made once and copied after: tmpProject(tree, { git: true }) makes its repository
// with three git processes (init, add, commit: about 14 ms of CPU), and the suite makes some 800
// of them, most with one of a few trees. A project whose tree (and the environment git ran in)
// was made before is copied from that one instead (about 4 ms): its files are written anew, its
// .git copied, and the index's stat data set to the new files', so git finds the copy clean, as
// it found the original, without reading a file or writing its index again.
//
// The templates are kept for the whole run, in the folder the global setup names in
// RALPH_TEST_PROJECT_TEMPLATES (run without it, in one of the test file's own, removed when the
// file ends). A tree is kept the second time this process makes it, not the first: most trees
// are made once. Two workers keeping the same tree each stage their copy and rename it into
// place; the second rename fails and its copy goes.

import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PROJECT_TEMPLATES_ENV = 'RALPH_TEST_PROJECT_TEMPLATES';

/** The folder this process keeps its templates in, and the trees it made once. */
let ownStore: string | undefined;
const madeOnce = new Set<string>();

/** What makes two git projects alike: their files, whether they are committed, and what git reads besides them. */
export function templateKey(tree: Record<string, string>, commit: boolean, env: NodeJS.ProcessEnv = process.env): string {
  const gitEnv = Object.entries(env)
    .filter(([name]) => name.startsWith('GIT_') || ['HOME', 'XDG_CONFIG_HOME', 'PATH'].includes(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const files = Object.entries(tree).sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify({ files, commit, gitEnv, umask: process.umask() }))
    .digest('hex')
    .slice(0, 24);
}

/** The template of `key`, when one is kept. */
export function keptTemplate(key: string, onFileEnd: (dir: string) => void, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = join(templateStore(onFileEnd, env), key);
  return existsSync(dir) ? dir : undefined;
}

/** Keeps `projectDir` (just made by git for `key`) as its template, the second time this process makes it. */
export function keepTemplate(key: string, projectDir: string, onFileEnd: (dir: string) => void, env: NodeJS.ProcessEnv = process.env): void {
  if (!madeOnce.has(key)) {
    madeOnce.add(key);
    return;
  }
  const store = templateStore(onFileEnd, env);
  const staging = mkdtempSync(join(store, `.staging-${process.pid}-`));
  try {
    cpSync(projectDir, staging, { recursive: true, verbatimSymlinks: true });
    renameSync(staging, join(store, key));
  } catch {
    // Another worker kept it first.
    rmSync(staging, { recursive: true, force: true });
  }
}

/** A copy of the template in `dir` (which exists, empty), its index's stat data the copy's. */
export function copyTemplate(template: string, dir: string): void {
  cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
  const index = join(dir, '.git', 'index');
  if (existsSync(index)) writeFileSync(index, withStatDataOf(readFileSync(index), dir));
}

function templateStore(onFileEnd: (dir: string) => void, env: NodeJS.ProcessEnv): string {
  const ofTheRun = env[PROJECT_TEMPLATES_ENV];
  if (ofTheRun !== undefined && existsSync(ofTheRun)) return ofTheRun;
  if (ownStore === undefined || !existsSync(ownStore)) {
    ownStore = mkdtempSync(join(tmpdir(), 'ralph-project-templates-'));
    madeOnce.clear();
    onFileEnd(ownStore);
  }
  return ownStore;
}

// A git index (versions 2 and 3): a 12-byte header, then per entry ctime and mtime (seconds and
// nanoseconds), dev, ino, mode, uid, gid, size (32 bits each), the object id (20 bytes), 16 bits
// of flags (the path's length in the low 12), in version 3 16 more when flag 0x4000 is set, the
// path, and NULs to a multiple of 8 bytes (at least one); then the extensions and a SHA-1 of all
// that precedes it.
const ENTRY_FIXED = 62;
const EXTENDED = 0x4000;

/** `index` with each entry's stat data set to what lstat gives for its file under `dir`. */
export function withStatDataOf(index: Buffer, dir: string): Buffer {
  const out = Buffer.from(index);
  const version = out.readUInt32BE(4);
  if (out.toString('latin1', 0, 4) !== 'DIRC' || (version !== 2 && version !== 3)) throw new Error(`not a git index of version 2 or 3: ${dir}`);
  let at = 12;
  for (let entry = out.readUInt32BE(8); entry > 0; entry--) {
    const flags = out.readUInt16BE(at + 60);
    const pathAt = at + ENTRY_FIXED + (flags & EXTENDED ? 2 : 0);
    const end = out.indexOf(0, pathAt);
    const stat = lstatSync(join(dir, out.toString('utf8', pathAt, end)), { bigint: true });
    const second = 1_000_000_000n;
    // The mode stays git's own (100644, 100755 or 120000), not lstat's.
    const fields: Array<[number, bigint]> = [
      [0, stat.ctimeNs / second],
      [4, stat.ctimeNs % second],
      [8, stat.mtimeNs / second],
      [12, stat.mtimeNs % second],
      [16, stat.dev],
      [20, stat.ino],
      [28, stat.uid],
      [32, stat.gid],
      [36, stat.size],
    ];
    for (const [offset, value] of fields) out.writeUInt32BE(Number(BigInt.asUintN(32, value)), at + offset);
    at += (end - at + 8) & ~7;
  }
  const body = out.subarray(0, out.length - 20);
  createHash('sha1')
    .update(body)
    .digest()
    .copy(out, out.length - 20);
  return out;
}
