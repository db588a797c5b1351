// `ralph`: the quick answers first. `--help` and `--version` are answered here, `--status`,
// `--circuit-status` and `--config` (as fast-path command lines: ralph-fast-path.ts) by
// status-command.ts, circuit-status-command.ts and config-command.ts; every other command line
// goes to ralph-main.ts. Bundled (scripts/bundle.mjs), this module is a file of its own and the
// others are built apart beside it: a quick answer loads a few files, not its share of the
// chunks common to all of ralph's commands. Nothing crosses between them but the exit code, so
// each reports its own errors. Bundled, `./ralph-main.js` is ralph-main-cached.ts, which runs
// ralph-main.ts's code from the V8 code cache the build made of it; both export `main`.

import { runMain } from '../error-funnel.js';
import { readPackageVersion } from '../package-info.js';
import { readFastOptions, readPrerenderedHelp } from '../ralph-fast-path.js';
import type { RalphCliOptions } from './ralph-options.js';

/** The answer to a quick command line, or undefined when it is not one. */
function quickAnswer(fast: RalphCliOptions | undefined): (() => Promise<number>) | undefined {
  switch (fast?.action) {
    case 'help': {
      const help = readPrerenderedHelp();
      if (help === undefined) return undefined;
      return async () => {
        process.stdout.write(help);
        return 0;
      };
    }
    case 'version':
      return async () => {
        process.stdout.write(`ralph ${readPackageVersion()}\n`);
        return 0;
      };
    case 'status': {
      const options = { json: fast.json, jq: fast.jq };
      return async () => (await import('./status-command.js')).runStatusCommand(options);
    }
    case 'circuit-status':
      return async () => (await import('./circuit-status-command.js')).runCircuitStatusCommand();
    case 'config': {
      const options = { flags: fast.flags, json: fast.json, jq: fast.jq };
      return async () => (await import('./config-command.js')).runConfigCommand(options);
    }
    default:
      return undefined;
  }
}

const quick = quickAnswer(readFastOptions(process.argv.slice(2)));
if (quick) await runMain(quick);
else await (await import('./ralph-main.js')).main();
