// Build step: renders `ralph --help` once from the yargs definition into dist/, so the common
// `ralph --help` answers without loading yargs (start-up budget, DESIGN.md §6). A test checks
// the file matches what yargs renders.
import { writeFileSync } from 'node:fs';

const { renderHelp } = await import('../dist/cli/ralph-options.js');
writeFileSync(new URL('../dist/cli/ralph-help.txt', import.meta.url), `${await renderHelp()}\n`);
