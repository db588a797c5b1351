// Built into dist/bundle-ralph/ as ralph-main.js, in the place of ralph-main.ts's own bundle
// (scripts/bundle.mjs): ralph-main.ts's code, bundled beside it as a classic script
// (ralph-main.script.js), runs from V8's code cache the build made of it (cli/cached-script.ts),
// so a run of ralph neither parses that ~700 KB again nor compiles each function it calls.
// V8 takes a cache only under the flags it was made with, so the loop's heap settings (which
// ralph-main.ts would set later) are set before the script is compiled, here and in the build's
// run that makes the cache alike: loadRalphMain is the one way both load it.

import { fileURLToPath } from 'node:url';
import { tuneHeapForLongRun } from '../../platform/heap-tuning.js';
import { loadCachedScript, type LoadedScript } from '../cached-script.js';

/** The classic-script bundle of ralph-main.ts beside this module's bundle. */
export const RALPH_MAIN_SCRIPT = 'ralph-main.script.js';

/**
 * The name the script is compiled under, which a `--debug` stack shows: its place in the package.
 * V8 keeps in the code cache the name the script had when the build made the cache, and shows
 * that one wherever the package is installed later: a path of the build's machine would name a
 * file that is not there (and ship that machine's folders in the package).
 */
export const RALPH_MAIN_NAME = `ralph-claude-code/dist/bundle-ralph/${RALPH_MAIN_SCRIPT}`;

/** The script at `file` (ralph-main.ts's bundle), compiled with its code cache under the loop's V8 flags. */
export function loadRalphMain(file: string): LoadedScript {
  tuneHeapForLongRun();
  return loadCachedScript(file, RALPH_MAIN_NAME);
}

/** ralph-main.ts's main, from the script beside this module (bundled only: see above). */
export async function main(): Promise<void> {
  const { exports } = loadRalphMain(fileURLToPath(new URL(`./${RALPH_MAIN_SCRIPT}`, import.meta.url)));
  await (exports.main as () => Promise<void>)();
}
