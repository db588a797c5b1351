// docs/configuration.md documents every configuration key, its default and description, as
// generated from the schema, and the README's exit-code table matches the codes the CLI uses.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replaceConfigTable } from '../../../lib/config/config-docs.js';
import { CONFIG_KEYS } from '../../../lib/config/schema.js';
import { EXIT } from '../../../lib/errors.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const configuration = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');

describe('README', () => {
  it('has the configuration table generated from the schema in docs/configuration.md (run scripts/render-readme.mjs)', () => {
    expect(configuration).toBe(replaceConfigTable(configuration));
    for (const key of CONFIG_KEYS) expect(configuration).toContain(`| \`${key}\``);
  });

  it('lists every exit code the CLI uses', () => {
    const table = readme.slice(readme.indexOf('<!-- exit-codes:start -->'), readme.indexOf('<!-- exit-codes:end -->'));
    for (const code of [EXIT.ok, EXIT.couldNotRun, EXIT.halted, EXIT.limit]) expect(table).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
    expect(table).toContain(`| ${EXIT.sighup} / ${EXIT.sigint} / ${EXIT.sigquit} / ${EXIT.sigterm} |`);
  });
});
