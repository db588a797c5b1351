// Regenerates the configuration table of docs/configuration.md from lib/config/schema.ts (via dist/).
// Run after adding or changing a key: npm run build && node scripts/render-readme.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const { replaceConfigTable } = await import('../dist/config/config-docs.js');
const path = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(path, replaceConfigTable(readFileSync(path, 'utf8')));
