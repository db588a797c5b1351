import { describe, expect, it } from 'vitest';
import { allowedToolsFor, DEFAULT_ALLOWED_TOOLS, quoteRalphrcValue } from '../../../lib/project/ralphrc-values.js';

describe('allowedToolsFor', () => {
  it('is the Bash default (19 tools) for npm and unknown projects', () => {
    expect(DEFAULT_ALLOWED_TOOLS).toHaveLength(19);
    expect(allowedToolsFor('npm')).toEqual([...DEFAULT_ALLOWED_TOOLS]);
    expect(allowedToolsFor(undefined)).toEqual([...DEFAULT_ALLOWED_TOOLS]);
  });

  it('adds the detected package manager so the agent can build and test', () => {
    expect(allowedToolsFor('cargo').at(-1)).toBe('Bash(cargo *)');
    expect(allowedToolsFor('pip').slice(-2)).toEqual(['Bash(pip *)', 'Bash(pytest *)']);
  });
});

describe('quoteRalphrcValue', () => {
  it('double-quotes and escapes what a shell would interpret', () => {
    expect(quoteRalphrcValue('npm test')).toBe('"npm test"');
    expect(quoteRalphrcValue('a"b$c`d\\e')).toBe('"a\\"b\\$c\\`d\\\\e"');
    expect(quoteRalphrcValue('two\nlines')).toBe('"two lines"');
  });
});
