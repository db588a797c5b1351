// Build step: renders `ralph --help` once from the flag table into dist/, so the common
// `ralph --help` answers without loading the table and the config schema (start-up budget,
// docs/performance.md). tests/e2e/ralph-help.test.ts checks the file matches what the table renders.
// Beside it, the fast-path index: each short command line the parser answers with a quick
// action, and the options it gives (lib/cli/ralph-fast-path.ts reads it).
import { writeFileSync } from 'node:fs';

const { renderRalphHelp } = await import('../dist/cli/ralph/ralph-help.js');
const { fastCommandLines } = await import('../dist/cli/ralph/ralph-options.js');
const { fastPathKey } = await import('../dist/cli/ralph-fast-path.js');
writeFileSync(new URL('../dist/cli/ralph-help.txt', import.meta.url), `${renderRalphHelp()}\n`);
writeFileSync(
  new URL('../dist/cli/ralph-fast-path.json', import.meta.url),
  `${JSON.stringify(Object.fromEntries(fastCommandLines().map(({ argv, options }) => [fastPathKey(argv), options])))}\n`,
);
