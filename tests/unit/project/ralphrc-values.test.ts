import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOWED_TOOLS, splitAllowedTools } from '../../../lib/config/schema.js';
import { allowedToolsFor, quoteRalphrcValue } from '../../../lib/project/ralphrc-values.js';

describe('allowedToolsFor', () => {
  it("is the schema's default, the Bash tool's 19 tools, for npm and unknown projects", () => {
    expect(splitAllowedTools(DEFAULT_ALLOWED_TOOLS)).toHaveLength(19);
    expect(allowedToolsFor('npm')).toEqual(splitAllowedTools(DEFAULT_ALLOWED_TOOLS));
    expect(allowedToolsFor(undefined)).toEqual(splitAllowedTools(DEFAULT_ALLOWED_TOOLS));
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
