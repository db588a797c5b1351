// The fake gh's call log (FAKE_GH_LOG): a JSON line per call, { argv, cwd } and, for a body given
// on stdin (`--body-file -`), what it read there. The bundled fake's sh keeps such a body in a
// file beside the log and names it in the line's stdinFile (tests/fixtures/fake-gh/answers.sh):
// read here as the line's stdin, as the Node program writes it.

import { existsSync, readFileSync } from 'node:fs';

/** One recorded gh call: its argv, its folder and, for `--body-file -`, what it read on stdin. */
export interface FakeGhCall {
  argv: string[];
  cwd: string;
  stdin?: string;
}

/** The calls logged in `path` (none when there is no log yet), in order. */
export function readFakeGhLog(path: string): FakeGhCall[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const { stdinFile, ...call } = JSON.parse(line) as FakeGhCall & { stdinFile?: string };
      return stdinFile === undefined ? call : { ...call, stdin: readFileSync(stdinFile, 'utf8') };
    });
}
