// The `ralph` command line, parsed from the flag table (ralph-flags.ts): argv is split into the
// table's flags (read-argv.ts; no yargs, for start-up time), then each row that sets a config
// key is checked against the key's type, bounds and choices in the schema, with the Bash tool's
// message where it has one. Parsing turns argv into an immediate action (help, status, …) or a
// run, plus the flag layer of the configuration (flags win over env, .ralphrc and defaults).

import { DEFAULT_WEB_HOST } from '../../web/web-address.js';
import { RalphError } from '../../errors.js';
import { findClosestName } from '../../text/closest-name.js';
import { RALPH_FLAGS, type RalphFlag } from './ralph-flags.js';
import { CONFIG_SCHEMA, type ConfigKey } from '../../config/schema.js';
import { argvFlags, checkFlagValue, type FlagTable } from '../flag-table.js';
import type { QueueCommand } from '../queue/queue-commands.js';
import { readArgv, type ReadArgv } from '../read-argv.js';

/** What `ralph` was asked to do, in the Bash tool's order of "immediate" flags. */
export type RalphAction =
  | 'help'
  | 'version'
  | 'status'
  | 'config'
  | 'doctor'
  | 'sandbox-build'
  | 'reset-circuit'
  | 'circuit-status'
  | 'reset-session'
  | 'rollback'
  | 'parallel-abandon'
  | 'accept-item'
  | 'monitor'
  | 'demo'
  | 'queue'
  | 'run';

export interface RalphCliOptions {
  action: RalphAction;
  /** Flag layer of the configuration, keyed by config key. */
  flags: Record<string, string | number | boolean>;
  json: boolean;
  /** `--jq <filter>`: filter the JSON output in-process (implies --json). */
  jq?: string;
  debug: boolean;
  keepMonitor: boolean;
  /** --monitor: the run in tmux beside the dashboard (also for --demo). */
  monitor: boolean;
  fresh: boolean;
  /** --halt-on-failure (the queue's is in `queue`). */
  haltOnFailure: boolean;
  rollbackTarget?: string;
  /** `--accept-item` (repeatable): the plan items ralph holds open that the user counts as done, by number or text. */
  acceptItems?: string[];
  force: boolean;
  /** argv as given, for `--monitor` forwarding. */
  argv: string[];
  /** The queue command of `--queue-status`, `--process-queue`, … (action `queue`). */
  queue?: QueueCommand;
  /** --web: the live web view served beside the loop, and where. */
  web?: { host: string; port: number };
}

/** Flags the Bash tool has that this version recognises but does not implement yet. */
const UNSUPPORTED_FLAGS = [
  'sandbox-template',
  'sandbox-id',
  'sandbox-timeout',
  'sandbox-keep-alive',
  'sandbox-max-cost',
  'sandbox-cost-alert',
  'sync-include',
  'sync-exclude',
];

/** " (did you mean --monitor?)" for a flag name within two edits of a real one; else "". */
function suggestFlag(name: string): string {
  const flag = findClosestName(
    name,
    RALPH_FLAGS.map((f) => f.name),
  );
  return flag === undefined ? '' : ` (did you mean --${flag}?)`;
}

export function parseRalphArgs(argv: string[]): RalphCliOptions {
  const read = readArgv(argv, [...argvFlags(RALPH_FLAGS), ...UNSUPPORTED_FLAGS.map((name) => ({ name, takesValue: true }))]);
  if (read.unknown.length > 0) {
    // A one-letter flag is no misspelt long name: `-x` is not a typo of --jq.
    const names = read.unknown.map((flag) => flag + (flag.startsWith('--') ? suggestFlag(flag.slice(2)) : ''));
    throw flagError(`Unknown option: ${names.join(', ')}`);
  }
  // Each flag's last value (a repeated flag other than a list key's: the last one wins).
  const parsed: Record<string, string | boolean | undefined> = Object.fromEntries([...read.values].map(([name, values]) => [name, values.at(-1)]));
  for (const flag of UNSUPPORTED_FLAGS) {
    if (parsed[flag] !== undefined) {
      throw new RalphError('unsupported_flag', `--${flag} is not supported by this version of ralph`, {
        hint: 'the E2B sandbox and sync flags are not implemented; run without it',
      });
    }
  }
  if (read.positional.length > 0) {
    const word = read.positional[0]!;
    const flag = findClosestName(
      word,
      RALPH_FLAGS.map((f) => f.name),
    );
    throw new RalphError('bad_flag', `Unknown argument: ${word} (ralph takes options only${flag ? `; did you mean --${flag}?` : ''})`, { hint: HELP_HINT });
  }

  checkSandboxFlags(parsed);
  const flags = readKeyFlags(read.values);
  const str = (name: string) => (parsed[name] === undefined ? undefined : String(parsed[name]));

  const action = pickAction(parsed);
  if (parsed['halt-on-failure'] && !(parsed['process-queue'] || parsed['resume-queue'] || parsed.parallel !== undefined)) {
    throw flagError('--halt-on-failure goes with --process-queue, --resume-queue or --parallel');
  }
  const web = readWebFlags(parsed, action);
  const jq = str('jq');
  if (jq !== undefined && !JSON_ACTIONS.includes(action)) {
    throw flagError('--jq filters JSON output: use it with --status, --config or --rollback');
  }
  return {
    action,
    flags,
    json: Boolean(parsed.json) || jq !== undefined,
    jq,
    debug: Boolean(parsed.debug),
    keepMonitor: Boolean(parsed['keep-monitor']),
    monitor: Boolean(parsed.monitor),
    fresh: Boolean(parsed.fresh),
    haltOnFailure: Boolean(parsed['halt-on-failure']),
    rollbackTarget: str('rollback') || undefined,
    acceptItems: action === 'accept-item' ? readAcceptItems(read.values.get('accept-item') ?? []) : undefined,
    force: Boolean(parsed.force),
    argv,
    queue: action === 'queue' ? pickQueueCommand(parsed) : undefined,
    ...(web ? { web } : {}),
  };
}

/** --web with its --web-port and --web-host: for a loop run only (the monitor has its own --web). */
function readWebFlags(parsed: Record<string, unknown>, action: RalphAction): RalphCliOptions['web'] {
  for (const name of ['web-port', 'web-host']) {
    if (parsed[name] !== undefined && !parsed.web) throw flagError(`--${name} goes with --web`);
  }
  if (!parsed.web) return undefined;
  if (action !== 'run') throw flagError(action === 'monitor' ? '--web does not go with --monitor: use one view or the other' : '--web goes with a loop run');
  return {
    host: parsed['web-host'] === undefined ? DEFAULT_WEB_HOST : String(parsed['web-host']),
    port: parsed['web-port'] === undefined ? 0 : Number(parsed['web-port']),
  };
}

type FlagLayer = Record<string, string | number | boolean>;

/**
 * The flag layer of the configuration: every given flag that sets a key, read and checked as its
 * row and its key's schema say. The GitHub issue lifecycle flags set the same keys as .ralphrc
 * (GITHUB_ISSUE, CREATE_PR, …), so a caller running the loop in-process enables it with those
 * keys alone; the issue REF itself is checked when the run starts (lib/lifecycle/issue-ref.ts).
 */
function readKeyFlags(given: ReadArgv['values']): FlagLayer {
  const flags: FlagLayer = {};
  for (const flag of RALPH_FLAGS) {
    const values = given.get(flag.name);
    if (flag.key === undefined || values === undefined) continue;
    const last = values.at(-1);
    const type = CONFIG_SCHEMA[flag.key].type;
    if (type === 'bool') flags[flag.key] = Boolean(last);
    else if (type === 'list') flags[flag.key] = readListFlag(flag, values.map(String));
    else flags[flag.key] = readValueFlag(flag, flag.key, String(last));
  }
  return flags;
}

/** One value for a number or text key, checked as its row says with the key's type, bounds and choices. */
function readValueFlag(flag: RalphFlag, key: ConfigKey, raw: string): string | number {
  const spec = CONFIG_SCHEMA[key];
  const kind = spec.type === 'int' || spec.type === 'number' ? spec.type : 'text';
  // A text value is kept as typed, blank included, unless the row has the Bash tool's message for it.
  const row = { ...flag, kind, min: spec.min, max: spec.max, choices: flag.choices ?? spec.choices, allowBlank: flag.invalid === undefined } as const;
  return checkFlagValue(row, raw, RALPH_TABLE);
}

/** Every value of a repeatable flag, as the comma-separated list its key holds. */
function readListFlag(flag: RalphFlag, values: string[]): string {
  if (flag.invalid !== undefined && (values.length === 0 || values.some((value) => value.trim() === ''))) throw flagError(flag.invalid);
  const items = values
    .flatMap((value) => value.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const unknown = flag.choices && items.find((item) => !flag.choices!.includes(item));
  if (unknown) throw flagError(`--${flag.name} must be one of ${flag.choices!.join(', ')}, got ${JSON.stringify(unknown)}`);
  for (const item of items) checkOwn(flag, item);
  return items.join(',');
}

function checkOwn(flag: RalphFlag, value: string): void {
  const problem = flag.check?.(value);
  if (problem) throw RALPH_TABLE.fail(problem);
}

// A `--sandbox-*` sub-flag without `--sandbox` (even with SANDBOX_PROVIDER in .ralphrc) is an
// error, as in the Bash tool, so a typo never runs on the host; bwrap takes only the network.
function checkSandboxFlags(parsed: Record<string, unknown>): void {
  const provider = parsed.sandbox;
  for (const name of ['sandbox-image', 'sandbox-memory', 'sandbox-cpus', 'sandbox-network']) {
    if (parsed[name] === undefined) continue;
    if (provider === undefined) throw flagError(`--${name} requires --sandbox docker${name === 'sandbox-network' ? ' or --sandbox bwrap' : ''}`);
    if (provider === 'bwrap' && name !== 'sandbox-network') throw flagError(`--${name} applies to --sandbox docker only`);
  }
}

/** Each `--accept-item` value, none of them blank. */
function readAcceptItems(values: ReadonlyArray<string | boolean>): string[] {
  const items = values.map((value) => String(value).trim());
  if (items.length === 0 || items.some((item) => item === '' || item === 'true')) {
    throw flagError('--accept-item requires an item: its number in ralph --status, or its text');
  }
  return items;
}

/** The Bash tool's queue flags, as the `ralph-queue` command each one runs. */
function pickQueueCommand(parsed: Record<string, unknown>): QueueCommand {
  const haltOnFailure = Boolean(parsed['halt-on-failure']);
  if (parsed['queue-status']) return { kind: 'status', json: Boolean(parsed.json) };
  // --parallel is checked (1-16) with the other flags; 1 is the serial queue.
  if (parsed['process-queue'] || parsed['resume-queue'])
    return { kind: 'process', haltOnFailure, parallel: parsed.parallel === undefined ? 1 : Number(parsed.parallel) };
  if (parsed['queue-next']) return { kind: 'next' };
  if (parsed['queue-clear']) return { kind: 'clear' };
  const ref = String(parsed['queue-remove'] ?? '').trim();
  if (ref === '') throw flagError('--queue-remove requires an issue number or id');
  return { kind: 'remove', ref };
}

const QUEUE_FLAGS = ['queue-status', 'process-queue', 'resume-queue', 'queue-next', 'queue-clear', 'queue-remove'];

/** The immediate actions that can print JSON (and so take --jq). */
const JSON_ACTIONS: RalphAction[] = ['status', 'config', 'rollback'];

function pickAction(parsed: Record<string, unknown>): RalphAction {
  if (parsed.help) return 'help';
  if (parsed.version) return 'version';
  if (parsed.status) return 'status';
  if (parsed.config) return 'config';
  if (parsed.doctor) return 'doctor';
  if (parsed['sandbox-build']) return 'sandbox-build';
  if (parsed['reset-circuit']) return 'reset-circuit';
  if (parsed['circuit-status']) return 'circuit-status';
  if (parsed['reset-session']) return 'reset-session';
  if (parsed.rollback !== undefined) return 'rollback';
  if (parsed['parallel-abandon']) return 'parallel-abandon';
  if (parsed['accept-item'] !== undefined) return 'accept-item';
  if (QUEUE_FLAGS.some((flag) => parsed[flag] !== undefined && parsed[flag] !== false)) return 'queue';
  if (parsed.demo) return 'demo';
  if (parsed.monitor) return 'monitor';
  return 'run';
}

const HELP_HINT = 'run ralph --help for the list of options';

/** The actions `ralph` answers before the loop's modules load, when asked for with nothing else. */
const FAST_ACTIONS: readonly RalphAction[] = ['help', 'version', 'status', 'config', 'circuit-status'];

/** The options of a fast command line, without its argv. */
export type FastOptions = Omit<RalphCliOptions, 'argv'>;

/**
 * Every short command line (each flag of the table, by each spelling, alone or with --json) that
 * asks for a fast action and nothing else, with the options this parser gives it. The build
 * writes them beside the help (scripts/render-help.mjs, keyed by ralph-fast-path.ts fastPathKey)
 * and the fast path looks argv up there, so it knows no flag of its own and answers exactly as
 * this parser would.
 */
export function fastCommandLines(): Array<{ argv: string[]; options: FastOptions }> {
  const lines: Array<{ argv: string[]; options: FastOptions }> = [];
  const spellings = RALPH_FLAGS.flatMap((flag) => [`--${flag.name}`, ...(flag.alias ? [`-${flag.alias}`] : [])]);
  for (const argv of spellings.flatMap((word) => [[word], ...(word === '--json' ? [] : [[word, '--json']])])) {
    let parsed: RalphCliOptions;
    try {
      parsed = parseRalphArgs(argv);
    } catch {
      continue;
    }
    const { argv: _argv, ...options } = parsed;
    const plain = Object.keys(options.flags).length === 0 && !options.debug && options.jq === undefined && options.queue === undefined;
    if (plain && FAST_ACTIONS.includes(options.action)) lines.push({ argv, options });
  }
  return lines;
}

function flagError(message: string): RalphError {
  return new RalphError('bad_flag', message, { hint: HELP_HINT });
}

/** ralph's flag table, for the generic checks (flag-table.ts): a refused flag is a bad_flag error. */
const RALPH_TABLE: Pick<FlagTable, 'fail'> = {
  fail: (problem) => new RalphError('bad_flag', problem.message, { details: problem.details, hint: problem.hint ?? HELP_HINT }),
};
