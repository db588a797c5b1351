// Build step: renders `ralph --help` once from the flag table into dist/, so the common
// `ralph --help` answers without loading the table and the config schema (start-up budget,
// DESIGN.md §6). tests/e2e/ralph-help.test.ts checks the file matches what the table renders.
import { writeFileSync } from 'node:fs';

const { renderRalphHelp } = await import('../dist/cli/ralph-flags.js');
writeFileSync(new URL('../dist/cli/ralph-help.txt', import.meta.url), `${renderRalphHelp()}\n`);
