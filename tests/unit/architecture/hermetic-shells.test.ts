// A bash the suite starts reads no startup file of the machine it runs on. Debian's bash, started
// with a socket on stdin (Node's piped stdio is one) and a shell level under 2, takes itself for a
// shell run by sshd and reads ~/.bashrc: whatever the machine's user put there then runs inside
// the test (a version manager's hook that waits a minute on its lock made a test time out).
// `--norc` keeps it out.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const TESTS = join(REPO_ROOT, 'tests');
const THIS_FILE = fileURLToPath(import.meta.url);
// A call that starts bash with its arguments written out: `spawnSync('bash', [`, `execFile('bash', [`.
const BASH_CALL = /\b(?:spawn|spawnSync|execFile|execFileSync)\(\s*'bash',\s*\[([^\]]*)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' && dir === TESTS ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && path !== THIS_FILE ? [path] : [];
  });
}

/** Where a file starts bash without `--norc` before its script: `file:line`. */
function bashWithStartupFiles(text: string, name: string): string[] {
  return [...text.matchAll(BASH_CALL)]
    .filter((call) => !/^\s*(?:'--noprofile',\s*)?'--norc'/.test(call[1]!))
    .map((call) => `${name}:${text.slice(0, call.index).split('\n').length}`);
}

describe('bash started by the tests', () => {
  it('reads no startup file (--norc)', () => {
    const found = sourceFiles(TESTS).flatMap((file) => bashWithStartupFiles(readFileSync(file, 'utf8'), relative(TESTS, file)));
    expect(found).toEqual([]);
  });

  it('is found in each way the tests start it', () => {
    const text = [
      "spawnSync('bash', ['-c', 'x']);",
      "execFileSync('bash', ['--norc', '-c', 'x']);",
      "execFile('bash', ['--noprofile', '--norc', '-c', s]);",
    ].join('\n');
    expect(bashWithStartupFiles(text, 'f.ts')).toEqual(['f.ts:1']);
  });
});
