// The layered configuration: one precedence rule for every key,
// flag > env > project .ralphrc > ~/.ralphrc > default, with the source of each effective value
// recorded for `ralph --config`. Invalid values from every layer are collected and thrown as one
// RalphError so the user can fix them all at once.

import { join } from 'node:path';
import { RalphError } from '../errors.js';
import { readControlFile } from '../state/control-file.js';
import { ralphPaths } from '../state/paths.js';
import { formatConfigProblem, type ConfigProblem } from './problems.js';
import { parseRalphrc } from './ralphrc.js';
import {
  CONFIG_KEYS,
  CONFIG_SCHEMA,
  coerceConfigValue,
  defaultConfig,
  envNamesFor,
  resolveConfigKey,
  type ConfigKey,
  type ConfigValue,
  type RalphConfig,
} from './schema.js';

export type ConfigSourceKind = 'flag' | 'env' | 'ralphrc' | 'home-ralphrc' | 'default';

export interface ConfigSource {
  kind: ConfigSourceKind;
  /** Where exactly: `.ralphrc:4`, `~/.ralphrc:2`, `env CLAUDE_USE_CONTINUE`. */
  detail?: string;
}

export interface LoadConfigOptions {
  projectDir: string;
  homeDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Values from command-line flags, already typed or as strings to coerce. */
  flags?: Partial<Record<ConfigKey, string | number | boolean>>;
  /** Returns a file's text, or undefined when it does not exist (default: the real filesystem). */
  readFile?: (path: string) => string | undefined;
}

export interface LoadConfigResult {
  config: RalphConfig;
  sources: Record<ConfigKey, ConfigSource>;
  warnings: ConfigProblem[];
}

interface Candidate {
  key: ConfigKey;
  raw: string;
  source: ConfigSource;
  problemAt: Pick<ConfigProblem, 'file' | 'line' | 'key'>;
}

export function loadConfig(options: LoadConfigOptions): LoadConfigResult {
  const problems: ConfigProblem[] = [];
  const projectRc = ralphPaths(options.projectDir).ralphrc;
  const homeRc = join(options.homeDir, '.ralphrc');
  const readRc = (path: string, file: string, kind: ConfigSourceKind) => readRalphrcLayer(options, path, { file, kind }, problems);

  // Lowest layer first; a later candidate for the same key wins.
  const candidates = [
    ...(homeRc === projectRc ? [] : readRc(homeRc, '~/.ralphrc', 'home-ralphrc')),
    ...readRc(projectRc, '.ralphrc', 'ralphrc'),
    ...readEnvLayer(options.env),
    ...readFlagLayer(options.flags ?? {}),
  ];

  const config = defaultConfig() as Record<ConfigKey, ConfigValue>;
  const sources = Object.fromEntries(CONFIG_KEYS.map((key) => [key, { kind: 'default' }])) as Record<ConfigKey, ConfigSource>;
  const winners: Partial<Record<ConfigKey, Candidate>> = {};
  for (const candidate of candidates) {
    const result = coerceConfigValue(candidate.key, candidate.raw);
    if (!result.ok) {
      problems.push({ ...candidate.problemAt, message: result.message, severity: 'error' });
      continue;
    }
    config[candidate.key] = result.value;
    sources[candidate.key] = candidate.source;
    winners[candidate.key] = candidate;
  }

  const shellInit = winners.RALPH_SHELL_INIT_FILE;
  if (shellInit && config.RALPH_SHELL_INIT_FILE !== '') {
    problems.push({
      ...shellInit.problemAt,
      message: 'ignored: ralph never runs shell code; export what that file sets before starting ralph',
      severity: 'warning',
    });
  }
  problems.push(...warnUnusedKeys(config, winners));
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    throw new RalphError('config_invalid', `Found ${errors.length} problem${errors.length === 1 ? '' : 's'} in configuration`, {
      exitCode: 1,
      details: errors.map((problem) => `- ${formatConfigProblem(problem)}`),
      hint: 'fix the lines above, or run ralph --config to see effective values',
    });
  }
  return { config: config as RalphConfig, sources, warnings: problems.filter((p) => p.severity === 'warning') };
}

// One warning per accepted-but-unused key whose effective value is not its default: a Bash
// .ralphrc writes CB_OUTPUT_DECLINE_THRESHOLD=70, which changes nothing and is not worth a word.
function warnUnusedKeys(config: Record<ConfigKey, ConfigValue>, winners: Partial<Record<ConfigKey, Candidate>>): ConfigProblem[] {
  return CONFIG_KEYS.flatMap((key) => {
    const winner = winners[key];
    if (!CONFIG_SCHEMA[key].unused || !winner) return [];
    if (JSON.stringify(config[key]) === JSON.stringify(CONFIG_SCHEMA[key].default)) return [];
    return [{ ...winner.problemAt, message: 'accepted for compatibility but not used: setting it has no effect', severity: 'warning' as const }];
  });
}

function readRalphrcLayer(options: LoadConfigOptions, path: string, layer: { file: string; kind: ConfigSourceKind }, problems: ConfigProblem[]): Candidate[] {
  const { file, kind } = layer;
  let text: string | undefined;
  try {
    // Read safely: the agent can replace .ralphrc with a FIFO, a device or a link out of the project.
    text = options.readFile ? options.readFile(path) : readControlFile(path, { projectDir: options.projectDir, allowSymlinkOut: kind === 'home-ralphrc' });
  } catch (error) {
    // Not a file ralph may read (a FIFO, binary, a link out of the project): that is the whole problem.
    if (error instanceof RalphError) throw error;
    problems.push({ file, message: `cannot read: ${(error as Error).message}`, severity: 'error' });
  }
  if (text === undefined) return [];
  const parsed = parseRalphrc(text, { file, env: options.env, homeDir: options.homeDir });
  problems.push(...parsed.problems);
  return parsed.entries.flatMap(({ key: name, value, line }) => {
    const key = resolveConfigKey(name);
    if (!key) return [];
    return [{ key, raw: value, source: { kind, detail: `${file}:${line}` }, problemAt: { file, line, key: name } }];
  });
}

function readEnvLayer(env: LoadConfigOptions['env']): Candidate[] {
  return CONFIG_KEYS.flatMap((key) => {
    // As in the Bash tool, an empty env variable counts as unset.
    const name = envNamesFor(key).find((n) => env[n] !== undefined && env[n] !== '');
    if (name === undefined) return [];
    return [{ key, raw: env[name]!, source: { kind: 'env', detail: `env ${name}` }, problemAt: { file: 'env', key: name } }];
  });
}

function readFlagLayer(flags: NonNullable<LoadConfigOptions['flags']>): Candidate[] {
  return (Object.keys(flags) as ConfigKey[]).flatMap((key) => {
    const value = flags[key];
    if (value === undefined || resolveConfigKey(key) !== key) return [];
    return [{ key, raw: String(value), source: { kind: 'flag' }, problemAt: { file: 'flag', key } }];
  });
}
