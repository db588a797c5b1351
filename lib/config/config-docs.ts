// The configuration table of docs/configuration.md, generated from the one schema so the two
// cannot drift (scripts/render-readme.mjs writes it; a test checks the page matches).

import { CONFIG_KEYS, CONFIG_SCHEMA, envNamesFor } from './schema.js';

export const CONFIG_DOCS_START = '<!-- config-keys:start -->';
export const CONFIG_DOCS_END = '<!-- config-keys:end -->';

export function renderConfigTable(): string {
  const rows = CONFIG_KEYS.map((key) => {
    const spec = CONFIG_SCHEMA[key];
    const value = Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default);
    const shown = value === '' ? '(empty)' : `\`${value.replace(/\|/g, '\\|')}\``;
    const aliases = envNamesFor(key).slice(1);
    const also = aliases.length > 0 ? ` (also \`${aliases.join('`, `')}\`)` : '';
    return `| \`${key}\`${also} | ${shown} | ${spec.description.replace(/\|/g, '\\|')} |`;
  });
  return ['| key | default | what it does |', '|---|---|---|', ...rows].join('\n');
}

/** The page's text with the table between the markers replaced. */
export function replaceConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_DOCS_START);
  const end = readme.indexOf(CONFIG_DOCS_END);
  if (start < 0 || end < start) throw new Error('docs/configuration.md has no config-keys markers');
  return `${readme.slice(0, start + CONFIG_DOCS_START.length)}\n${renderConfigTable()}\n${readme.slice(end)}`;
}
