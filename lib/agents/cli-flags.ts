// Whether the installed agent CLI accepts a flag, read from its `--help`: asked once per CLI
// version and kept in the user's state directory beside ralph's ledgers (never in the project,
// where the agent could write the answer). An unknown version is asked each time and not kept.

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { splitCommand } from '../text/command-words.js';
import type { ProcessRunner } from '../platform/process.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import { ledgerRoot } from '../state/ledger-path.js';

export const CLI_FLAGS_FILE = 'agent-cli-flags.json';

export interface CliFlagOptions {
  /** The agent's name (`claude`) and the configured command (words, not a shell line). */
  agent: string;
  command: string;
  /** What `--version` said; undefined: asked again every time. */
  version: string | undefined;
  /** The flag, as `--help` lists it (`--max-budget-usd`). */
  flag: string;
  env: NodeJS.ProcessEnv;
  homeDir: string;
  cwd: string;
  runner: ProcessRunner;
}

type FlagCache = Record<string, Record<string, boolean>>;

/** The state-directory file holding the answers, `{ "claude 2.1.332": { "--max-budget-usd": true } }`. */
export function cliFlagsFile(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  return join(ledgerRoot(env, homeDir), CLI_FLAGS_FILE);
}

/** Whether `<command> --help` lists `flag`; undefined when the CLI could not be asked (nothing kept then). */
export async function cliHasFlag(options: CliFlagOptions): Promise<boolean | undefined> {
  const file = cliFlagsFile(options.env, options.homeDir);
  const key = options.version ? `${options.agent} ${options.version}` : undefined;
  const cache = readCache(file);
  const known = key ? cache[key]?.[options.flag] : undefined;
  if (known !== undefined) return known;
  const [cmd, ...prefix] = splitCommand(options.command);
  if (!cmd) return undefined;
  const answer = await options.runner.run(cmd, [...prefix, '--help'], { cwd: options.cwd, env: options.env, timeoutMs: 30_000 });
  if (answer.spawnError || answer.code !== 0) return undefined;
  const listed = new RegExp(`(^|[\\s,])${options.flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'm').test(answer.stdout);
  if (key) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeJsonAtomic(file, { ...cache, [key]: { ...cache[key], [options.flag]: listed } }, { mode: 0o600 });
  }
  return listed;
}

function readCache(file: string): FlagCache {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const cache: FlagCache = {};
  for (const [key, flags] of Object.entries(parsed)) {
    if (typeof flags !== 'object' || flags === null) continue;
    const kept = Object.entries(flags as Record<string, unknown>).filter((entry): entry is [string, boolean] => typeof entry[1] === 'boolean');
    cache[key] = Object.fromEntries(kept);
  }
  return cache;
}
