// ralph's own git calls run no repository code. The agent can write `.git/config`,
// `.git/info/attributes`, `.gitattributes` and `.git/hooks/`, and git runs programs named there:
// core.fsmonitor on every index refresh, filter drivers on add/checkout, textconv and diff
// drivers on diff, hooks on commit, credential helpers and ssh commands on push. So every git
// command ralph starts (the process runner sends each one here) carries configuration overrides
// in GIT_CONFIG_PARAMETERS — the channel `git -c` uses, so no value lands in argv — that pin each
// such key to the value it had when the run started (the user's own), or to a harmless value
// when it had none:
//
// - hooks never run: core.hooksPath is /dev/null (git looks for /dev/null/<hook>, which cannot
//   exist). A hooks folder inside the project (husky's `.husky/`) is the agent's to write, so
//   not even the user's hooks run from ralph's bookkeeping commits;
// - protocol.ext.allow is `never` (an `ext::` remote is a shell command);
// - the other keys that name a program keep their run-start values; keys the agent added (a new
//   filter or merge driver, a credential helper) are emptied, which git reads as "none" or
//   refuses (an empty diff.external fails a diff: ralph's diffs pass --no-ext-diff), and a new
//   textconv becomes `cat`.
//
// The run-start values are recorded once per working directory, by recordGitBaseline at run
// start or else at ralph's first git call there (always before the first agent call).
// Commands that can run drivers (add, commit, diff, push, …) read the current configuration
// first (`git config --list`, which runs nothing) to find the drivers added since, unless the
// caller vouches that the call reads no file content (RunOptions.gitReadsNoContent).

import { execFileSync } from 'node:child_process';
import { basename, resolve } from 'node:path';
import type { RunOptions, StartOptions } from './process-types.js';
import { startProcess } from './start-process.js';

type ConfigValues = Map<string, string[]>;
/** A `key=value` given to git as `-c` would. */
export type Override = [key: string, value: string];

// Keys that name a program, as `git config --list` prints them (section and name in lower case).
const EXEC_KEY = new RegExp(
  '^(?:' +
    [
      'core\\.(?:fsmonitor|hookspath|sshcommand|pager|askpass|editor|gitproxy|alternaterefscommand)',
      'sequence\\.editor',
      'diff\\.external',
      'credential\\.(?:.+\\.)?helper',
      'filter\\..+\\.(?:clean|smudge|process)',
      'diff\\..+\\.(?:textconv|command)',
      'merge\\..+\\.driver',
      'pager\\..+',
      'remote\\..+\\.(?:uploadpack|receivepack)',
      'gpg\\.(?:.+\\.)?program',
      'gpg\\.ssh\\.defaultkeycommand',
    ].join('|') +
    ')$',
);

// Pinned on every call; the value used when the run started without one.
const PINNED: ReadonlyArray<[string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.sshcommand', 'ssh'],
  ['core.pager', 'cat'],
  ['core.askpass', ''],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['diff.external', ''],
  ['credential.helper', ''],
  ['gpg.program', 'gpg'],
  ['gpg.openpgp.program', 'gpg'],
  ['gpg.x509.program', 'gpgsm'],
  ['gpg.ssh.program', 'ssh-keygen'],
];
// Forced whatever the run-start value.
const FORCED: ReadonlyArray<[string, string]> = [
  ['core.hookspath', '/dev/null'],
  ['protocol.ext.allow', 'never'],
];
// Subcommands that read no file content of the working tree, so run no filter or diff driver:
// the pinned keys are enough. Not write-tree: it re-checks racily clean entries through the
// clean filter.
const NO_DRIVERS = new Set([
  'rev-parse', 'ls-files', 'ls-tree', 'commit-tree', 'mktree', 'update-ref', 'for-each-ref', 'show-ref',
  'symbolic-ref', 'config', 'var', 'check-ignore', 'rev-list', 'merge-base', 'init', 'diff-tree', '--version', 'version',
]);

const baselines = new Map<string, Promise<ConfigValues>>();

export function isGitCommand(cmd: string): boolean {
  return basename(cmd) === 'git';
}

/** Records the program-running git settings as they are now: the user's own, for this run. */
export async function recordGitBaseline(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await baselineFor(cwd, env);
}

/** Forgets every recorded baseline (a new run in the same process, and tests). */
export function resetGitBaselines(): void {
  baselines.clear();
}

/** The options for an async git run, with the overrides in its environment. */
export async function hardenGitRun(args: readonly string[], options: RunOptions): Promise<RunOptions> {
  const env = options.env ?? process.env;
  const baseline = await baselineFor(options.cwd, env);
  const current = runsDrivers(args) && !options.gitReadsNoContent ? await readExecConfig(options.cwd, env) : undefined;
  return { ...options, env: withOverrides(env, gitOverrides(baseline, current)) };
}

/** The same for a streaming git process (read synchronously: start() returns at once). */
export function hardenGitStart(args: readonly string[], options: StartOptions): StartOptions {
  const env = options.env ?? process.env;
  const key = resolve(options.cwd ?? '.');
  const read = (): ConfigValues => parseExecConfig(execGitConfigSync(options.cwd, env));
  // A streaming call before any async one records its baseline now.
  const recorded = baselines.get(key);
  const baseline = recorded ? undefined : read();
  if (baseline) baselines.set(key, Promise.resolve(baseline));
  const overrides = gitOverrides(baseline ?? new Map(), runsDrivers(args) ? read() : undefined);
  // A recorded baseline is still a promise here: the pinned keys fall back to their harmless values.
  return { ...options, env: withOverrides(env, overrides) };
}

/**
 * The `key=value` overrides: the pinned keys at their run-start values (or harmless ones), the
 * forced keys, and every program-running key in `current` (when read) that differs from the
 * run start, set back to its run-start values or emptied. A key is first emptied, which resets
 * a list (credential.helper), then given its values; for a single value the last one wins.
 */
export function gitOverrides(baseline: ConfigValues, current: ConfigValues | undefined): Override[] {
  const out: Override[] = [];
  const pin = (key: string, fallback: string): void => {
    const values = baseline.get(key);
    out.push([key, '']);
    if (values && values.length > 0) for (const v of values) out.push([key, v]);
    else if (fallback !== '') out.push([key, fallback]);
  };
  for (const [key, fallback] of PINNED) pin(key, fallback);
  if (current) {
    const pinned = new Set(PINNED.map(([key]) => key));
    const keys = new Set([...current.keys(), ...baseline.keys()]);
    for (const key of keys) {
      if (pinned.has(key) || FORCED.some(([k]) => k === key)) continue;
      if (sameValues(current.get(key), baseline.get(key))) continue;
      // An empty textconv is run as a program named "" (the diff fails); cat converts nothing.
      pin(key, key.endsWith('.textconv') ? 'cat' : '');
      // A neutralised filter must not be required either, or git refuses the file.
      const filter = /^(filter\..+)\.(?:clean|smudge|process)$/.exec(key);
      if (filter && !baseline.has(key)) out.push([`${filter[1]}.required`, 'false']);
    }
  }
  for (const [key, value] of FORCED) out.push([key, value]);
  return out;
}

/** `git config -z --list` output → the program-running keys and their values, in order. */
export function parseExecConfig(listing: string): ConfigValues {
  const values: ConfigValues = new Map();
  for (const entry of listing.split('\0')) {
    if (entry === '') continue;
    const newline = entry.indexOf('\n');
    const key = newline === -1 ? entry : entry.slice(0, newline);
    if (!EXEC_KEY.test(key)) continue;
    const list = values.get(key) ?? [];
    list.push(newline === -1 ? '' : entry.slice(newline + 1));
    values.set(key, list);
  }
  return values;
}

function runsDrivers(args: readonly string[]): boolean {
  const sub = subcommand(args);
  return sub === undefined || !NO_DRIVERS.has(sub);
}

// The first word after git's own options (`-C <dir>`, `-c <k=v>`, `--git-dir=…`).
function subcommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-C' || arg === '-c') i++;
    else if (arg === '--version' || !arg.startsWith('-')) return arg;
  }
  return undefined;
}

function baselineFor(cwd: string | undefined, env: NodeJS.ProcessEnv): Promise<ConfigValues> {
  const key = resolve(cwd ?? '.');
  let baseline = baselines.get(key);
  if (!baseline) {
    baseline = readExecConfig(cwd, env);
    baselines.set(key, baseline);
  }
  return baseline;
}

async function readExecConfig(cwd: string | undefined, env: NodeJS.ProcessEnv): Promise<ConfigValues> {
  // `git config` runs no program; an unreadable configuration lists nothing (the command itself fails on it).
  const out: Buffer[] = [];
  const handle = startProcess('git', ['config', '-z', '--list'], { cwd, env, input: '', timeoutMs: 10_000, onStdout: (chunk) => out.push(chunk) });
  const exit = await handle.done;
  return parseExecConfig(exit.code === 0 ? Buffer.concat(out).toString('utf8') : '');
}

function execGitConfigSync(cwd: string | undefined, env: NodeJS.ProcessEnv): string {
  try {
    return execFileSync('git', ['config', '-z', '--list'], { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
  } catch {
    return '';
  }
}

function withOverrides(env: NodeJS.ProcessEnv, overrides: Override[]): NodeJS.ProcessEnv {
  const quoted = overrides.map(quoteOverride).join(' ');
  const earlier = env.GIT_CONFIG_PARAMETERS;
  return { ...env, GIT_CONFIG_PARAMETERS: earlier ? `${earlier} ${quoted}` : quoted };
}

// Git's own quoting for GIT_CONFIG_PARAMETERS: 'key=value' in single quotes, ' as '\''. A key
// with `=` in its subsection takes the 'key'='value' form (git 2.31+; older git refuses it,
// which fails closed), since in the first form the first `=` ends the key.
function quoteOverride([key, value]: Override): string {
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  return key.includes('=') ? `${quote(key)}=${quote(value)}` : quote(`${key}=${value}`);
}

function sameValues(a: string[] | undefined, b: string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
