// The agent's rewrite of git's object store, for the tests of what ralph reads from it: git checks
// no object's hash when it reads one, so an object file given another object's bytes is read as
// that other object under the first one's id.

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';

/** A loose blob of `content` written into the repository at `dir`; its id. */
export function writeBlob(dir: string, content: string): string {
  return execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: content, encoding: 'utf8' }).trim();
}

/** The loose object file of `target` in `gitDir` made a copy of `source`'s (both loose). */
export function rewriteLooseObject(gitDir: string, target: string, source: string): void {
  const file = (oid: string) => join(gitDir, 'objects', oid.slice(0, 2), oid.slice(2));
  chmodSync(file(target), 0o644);
  copyFileSync(file(source), file(target));
}
