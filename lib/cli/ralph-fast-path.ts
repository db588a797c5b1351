// The invocations people and scripts run most — `ralph --help`, `--version`, `--status`
// (`--json`), `--config` (`--json`), `--circuit-status` — answered without loading the flag
// table and its parser (and the first three without zod), to keep start-up within budget. Each
// answers exactly as the full parser's action would with no other flag. Anything else goes
// through the full parser.

import { readFileSync } from 'node:fs';
import { readPackageVersion } from './package-info.js';

export async function runFastPath(argv: string[], cwd: string): Promise<number | undefined> {
  const args = [...argv].sort().join(' ');
  switch (args) {
    case '--help':
    case '-h': {
      const help = readPrerenderedHelp();
      if (help === undefined) return undefined;
      process.stdout.write(help);
      return 0;
    }
    case '--version':
      process.stdout.write(`ralph ${readPackageVersion()}\n`);
      return 0;
    case '--status':
    case '-s':
    case '--json --status':
    case '--json -s': {
      const { showStatus } = await import('./status.js');
      return showStatus({ projectDir: cwd, json: argv.includes('--json'), write: (t) => process.stdout.write(t) });
    }
    case '--config':
    case '--config --json': {
      const { showConfig } = await import('./show-config.js');
      return showConfig({ flags: {}, json: argv.includes('--json'), jq: undefined }, cwd);
    }
    case '--circuit-status': {
      const { runStateCommand } = await import('./state-commands.js');
      return runStateCommand('circuit-status', { projectDir: cwd, env: process.env, write: (t) => process.stdout.write(t) });
    }
    default:
      return undefined;
  }
}

/** dist/cli/ralph-help.txt, written by scripts/render-help.mjs at build time. */
export function readPrerenderedHelp(): string | undefined {
  try {
    // `../cli/`: this module runs from dist/cli/ and, bundled, from dist/bundle/ (scripts/bundle.mjs).
    return readFileSync(new URL('../cli/ralph-help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
