// The fast path of `ralph` knows no flag of its own: its index is what the flag table's parser
// gives each short command line (ralph-options.ts, fastCommandLines, keyed as the build keys it), so a flag renamed in the table
// renames its fast path too, and a command line is answered there only as the parser would.

import { describe, expect, it } from 'vitest';
import { fastPathKey } from '../../../lib/cli/ralph-fast-path.js';
import { fastCommandLines, parseRalphArgs } from '../../../lib/cli/ralph/ralph-options.js';

describe('the fast-path index', () => {
  const index = Object.fromEntries(fastCommandLines().map(({ argv, options }) => [fastPathKey(argv), options]));

  it.each([
    ['--help'],
    ['-h'],
    ['--version'],
    ['--status'],
    ['-s'],
    ['--status', '--json'],
    ['--json', '-s'],
    ['--config'],
    ['--json', '--config'],
    ['--circuit-status'],
  ])('answers ralph %j as the parser does', (...argv) => {
    const { argv: _argv, ...options } = parseRalphArgs(argv);
    expect(index[fastPathKey(argv)]).toEqual(options);
  });

  it('holds only quick actions asked for with nothing else', () => {
    for (const options of Object.values(index)) {
      expect(['help', 'version', 'status', 'config', 'circuit-status']).toContain(options.action);
      expect(options).toMatchObject({ flags: {}, debug: false, jq: undefined });
    }
    for (const argv of [['--status', '--verbose'], ['--config', '--calls', '5'], ['--status', '--debug'], ['--doctor'], ['--json --status'], []]) {
      expect(index[fastPathKey(argv)], argv.join(' ')).toBeUndefined();
    }
  });
});
