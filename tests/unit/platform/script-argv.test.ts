import { describe, expect, it } from 'vitest';
import { templateArgv } from '../../../lib/platform/script.js';

const argv = (pieces: TemplateStringsArray, ...values: Array<string | number | string[]>) => templateArgv(pieces, values);

describe('templateArgv', () => {
  it('splits literal text on whitespace and keeps a value whole inside its word', () => {
    expect(argv`-C ${'/a dir'} log  --format=${'%H %s'} -n ${3}`).toEqual(['-C', '/a dir', 'log', '--format=%H %s', '-n', '3']);
  });

  it('keeps an empty value as an empty argument and adds nothing for an empty list', () => {
    expect(argv`commit -m ${''} ${[]} --quiet`).toEqual(['commit', '-m', '', '--quiet']);
  });

  it('spreads a list into words, joining its ends to the text beside them', () => {
    expect(argv`add --x=${['a b', 'c']}! end`).toEqual(['add', '--x=a b', 'c!', 'end']);
  });
});
