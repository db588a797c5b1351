// The `ralph` command line: every flag, its Bash-tool spelling and validation message, and the
// config key it sets. Parsing turns argv into an immediate action (help, status, …) or a run,
// plus the flag layer of the configuration (flags win over env, .ralphrc and defaults).

import yargs, { type Argv } from 'yargs';
import { RalphError } from '../errors.js';
import { findClosestName } from '../core/closest-name.js';
import { RALPH_FLAGS, renderRalphHelp } from './ralph-flags.js';
import { CONFIG_SCHEMA, describeConfigRange, type ConfigKey } from '../config/schema.js';
import type { QueueCommand } from './queue-commands.js';
import { providerProblem, SANDBOX_PROVIDERS, sandboxValueProblem } from '../core/sandbox-settings.js';

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
  | 'monitor'
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
  fresh: boolean;
  /** --halt-on-failure (the queue's is in `queue`). */
  haltOnFailure: boolean;
  rollbackTarget?: string;
  force: boolean;
  /** argv as given, for `--monitor` forwarding. */
  argv: string[];
  /** The queue command of `--queue-status`, `--process-queue`, … (action `queue`). */
  queue?: QueueCommand;
}

const VALID_TOOLS = [
  'Write', 'Read', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'Task', 'TodoWrite', 'WebFetch',
  'WebSearch', 'Bash', 'Bash(git *)', 'Bash(npm *)', 'Bash(bats *)', 'Bash(python *)',
  'Bash(node *)', 'NotebookEdit',
];

/** The longest --timeout, in minutes (CLAUDE_TIMEOUT_MINUTES' bound in the schema). */
const TIMEOUT_MAX = CONFIG_SCHEMA.CLAUDE_TIMEOUT_MINUTES.max!;

export const MESSAGES = {
  timeout: `--timeout: Timeout must be a positive integer between 1 and ${TIMEOUT_MAX} minutes`,
  outputFormat: "--output-format must be 'json' or 'text'",
  sessionExpiry: '--session-expiry requires a positive integer (hours)',
  calls: '--calls requires a positive integer (calls per hour)',
  maxLoops: '--max-loops requires a whole number (0 = unlimited)',
  maxCost: '--max-cost requires a number of US dollars (0 = unlimited)',
  maxRunMinutes: '--max-run-minutes requires a whole number of minutes (0 = unlimited)',
  delay: '--delay requires a non-negative number of seconds',
  parallel: '--parallel requires a whole number from 1 to 16 (units at a time)',
  invalidTool: (tool: string) => `Invalid tool in --allowed-tools: '${tool}'`,
  commentInterval: '--comment-interval must be a positive integer',
  addLabel: '--add-label requires a label',
  followupLabel: '--followup-label requires a label',
  githubIssue: '--github-issue requires an issue reference (N, #N, owner/repo#N or an issue URL)',
};

/** Flags the Bash tool has that this version recognises but does not implement yet. */
const UNSUPPORTED_FLAGS = [
  'sandbox-template', 'sandbox-id', 'sandbox-timeout', 'sandbox-keep-alive', 'sandbox-max-cost',
  'sandbox-cost-alert', 'sync-include', 'sync-exclude',
];

export function buildRalphParser(argv: string[]): Argv {
  const parser = yargs(argv)
    .scriptName('ralph')
    .help(false)
    .version(false)
    .strictOptions()
    .parserConfiguration({ 'camel-case-expansion': false, 'boolean-negation': true, 'duplicate-arguments-array': false });
  for (const flag of RALPH_FLAGS) {
    parser.option(flag.name, {
      type: flag.arg ? 'string' : 'boolean',
      ...(flag.alias ? { alias: flag.alias } : {}),
      describe: flag.describe,
    });
  }
  parser.fail((message, error) => {
    throw error ?? new RalphError('bad_flag', rewriteYargsMessage(message), { hint: 'run ralph --help for the list of options' });
  });
  for (const flag of UNSUPPORTED_FLAGS) parser.option(flag, { type: 'string', hidden: true });
  return parser;
}

/** " (did you mean --monitor?)" for a flag name within two edits of a real one; else "". */
function suggestFlag(name: string): string {
  const flag = findClosestName(name, RALPH_FLAGS.map((f) => f.name));
  return flag === undefined ? '' : ` (did you mean --${flag}?)`;
}

function rewriteYargsMessage(message: string): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown) {
    const names = unknown[1]!.split(', ').map((n) => (n.length === 1 ? `-${n}` : `--${n}`) + suggestFlag(n));
    return `Unknown option: ${names.join(', ')}`;
  }
  return message;
}

export function parseRalphArgs(argv: string[]): RalphCliOptions {
  const parsed = buildRalphParser(argv).parseSync() as Record<string, unknown>;
  for (const flag of UNSUPPORTED_FLAGS) {
    if (parsed[flag] !== undefined) {
      throw new RalphError('unsupported_flag', `--${flag} is not supported by this version of ralph`, {
        hint: 'the E2B sandbox and sync flags are not implemented; run without it',
      });
    }
  }
  const positional = (parsed._ as unknown[]) ?? [];
  if (positional.length > 0) {
    const word = String(positional[0]);
    const flag = findClosestName(word, RALPH_FLAGS.map((f) => f.name));
    throw new RalphError('bad_flag', `Unknown argument: ${word} (ralph takes options only${flag ? `; did you mean --${flag}?` : ''})`, { hint: 'run ralph --help for the list of options' });
  }

  const flags: Record<string, string | number | boolean> = {};
  const str = (name: string) => (parsed[name] === undefined ? undefined : String(parsed[name]));

  const calls = str('calls');
  if (calls !== undefined) flags.MAX_CALLS_PER_HOUR = inRange('--calls', 'MAX_CALLS_PER_HOUR', calls, positiveInt(calls, MESSAGES.calls));
  if (str('prompt') !== undefined) flags.PROMPT_FILE = str('prompt')!;
  if (parsed.verbose) flags.RALPH_VERBOSE = true;
  if (parsed.live) flags.LIVE_OUTPUT = true;
  const timeout = str('timeout');
  if (timeout !== undefined) {
    const minutes = positiveInt(timeout, MESSAGES.timeout);
    if (minutes > TIMEOUT_MAX) throw flagError(MESSAGES.timeout);
    flags.CLAUDE_TIMEOUT_MINUTES = minutes;
  }
  const format = str('output-format');
  if (format !== undefined) {
    if (format !== 'json' && format !== 'text') throw flagError(MESSAGES.outputFormat);
    flags.CLAUDE_OUTPUT_FORMAT = format;
  }
  const tools = str('allowed-tools');
  if (tools !== undefined) {
    validateAllowedTools(tools);
    flags.ALLOWED_TOOLS = tools;
  }
  if (parsed.continue === false) flags.SESSION_CONTINUITY = false;
  const expiry = str('session-expiry');
  if (expiry !== undefined) flags.SESSION_EXPIRY_HOURS = inRange('--session-expiry', 'SESSION_EXPIRY_HOURS', expiry, positiveInt(expiry, MESSAGES.sessionExpiry));
  if (parsed['auto-reset-circuit']) flags.CB_AUTO_RESET = true;
  if (parsed['dry-run']) flags.DRY_RUN = true;
  if (parsed.notify) flags.ENABLE_NOTIFICATIONS = true;
  if (parsed.backup) flags.ENABLE_BACKUP = true;
  if (parsed['show-tool-args']) flags.LIVE_SHOW_TOOL_ARGS = true;
  const agent = str('agent');
  if (agent !== undefined) {
    const choices = CONFIG_SCHEMA.AGENT_PROVIDER.choices ?? [];
    if (!choices.includes(agent)) throw flagError(`--agent must be one of ${choices.join(', ')}, got "${agent}"`);
    flags.AGENT_PROVIDER = agent;
  }
  const fallbacks = repeatedValues(argv, '--fallback-agent');
  if (fallbacks.length > 0) {
    const choices = CONFIG_SCHEMA.AGENT_PROVIDER.choices ?? [];
    const names = fallbacks.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
    const unknown = names.find((name) => !choices.includes(name));
    if (unknown !== undefined) throw flagError(`--fallback-agent must be one of ${choices.join(', ')}, got "${unknown}"`);
    flags.FALLBACK_AGENTS = names.join(',');
  }
  const parallel = str('parallel');
  if (parallel !== undefined) {
    if (!/^[1-9][0-9]*$/.test(parallel) || Number(parallel) > 16) throw flagError(MESSAGES.parallel);
    flags.PARALLEL = Number(parallel);
  }
  const maxLoops = str('max-loops');
  // 0 means unlimited here as in .ralphrc (and lets a flag lift a limit set there).
  if (maxLoops !== undefined) flags.MAX_LOOPS = inRange('--max-loops', 'MAX_LOOPS', maxLoops, nonNegativeInt(maxLoops, MESSAGES.maxLoops));
  const maxCost = str('max-cost');
  if (maxCost !== undefined) flags.MAX_COST_USD = inRange('--max-cost', 'MAX_COST_USD', maxCost, nonNegativeNumber(maxCost, MESSAGES.maxCost));
  const maxMinutes = str('max-run-minutes');
  if (maxMinutes !== undefined) flags.MAX_RUN_MINUTES = inRange('--max-run-minutes', 'MAX_RUN_MINUTES', maxMinutes, nonNegativeInt(maxMinutes, MESSAGES.maxRunMinutes));
  const delay = str('delay');
  if (delay !== undefined) {
    const seconds = Number(delay);
    if (!/^\d+(\.\d+)?$/.test(delay) || !Number.isFinite(seconds)) throw flagError(MESSAGES.delay);
    flags.LOOP_DELAY_SECONDS = inRange('--delay', 'LOOP_DELAY_SECONDS', delay, seconds);
  }

  readLifecycleFlags(parsed, argv, flags);
  readSandboxFlags(parsed, flags);

  const action = pickAction(parsed);
  if (parsed['halt-on-failure'] && !(parsed['process-queue'] || parsed['resume-queue'] || parallel !== undefined)) {
    throw flagError('--halt-on-failure goes with --process-queue, --resume-queue or --parallel');
  }
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
    fresh: Boolean(parsed.fresh),
    haltOnFailure: Boolean(parsed['halt-on-failure']),
    rollbackTarget: str('rollback') || undefined,
    force: Boolean(parsed.force),
    argv,
    queue: action === 'queue' ? pickQueueCommand(parsed) : undefined,
  };
}

// The GitHub issue lifecycle flags set the same keys as .ralphrc (GITHUB_ISSUE, CREATE_PR, …), so
// a caller running the loop in-process enables it with those keys alone. The REF itself is
// checked when the run starts (lib/core/issue-ref.ts), wherever it came from.
function readLifecycleFlags(parsed: Record<string, unknown>, argv: string[], flags: Record<string, string | number | boolean>): void {
  const str = (name: string) => (parsed[name] === undefined ? undefined : String(parsed[name]));
  const issue = str('github-issue');
  if (issue !== undefined) {
    if (issue.trim() === '') throw flagError(MESSAGES.githubIssue);
    flags.GITHUB_ISSUE = issue;
  }
  const interval = str('comment-interval');
  if (interval !== undefined) flags.COMMENT_INTERVAL = inRange('--comment-interval', 'COMMENT_INTERVAL', interval, positiveInt(interval, MESSAGES.commentInterval));
  const switches = {
    'comment-progress': 'COMMENT_PROGRESS',
    'close-summary': 'CLOSE_SUMMARY',
    'create-pr': 'CREATE_PR',
    'draft-pr': 'DRAFT_PR',
    'link-issue': 'LINK_ISSUE',
    'create-followups': 'CREATE_FOLLOWUPS',
    'auto-close': 'AUTO_CLOSE',
  } as const;
  for (const [flag, key] of Object.entries(switches)) if (parsed[flag]) flags[key] = true;
  const followupLabel = str('followup-label');
  if (followupLabel !== undefined) {
    if (followupLabel.trim() === '') throw flagError(MESSAGES.followupLabel);
    flags.FOLLOWUP_LABEL = followupLabel;
  }
  if (parsed['add-label'] !== undefined) {
    const labels = repeatedValues(argv, '--add-label');
    if (labels.length === 0 || labels.some((label) => label.trim() === '')) throw flagError(MESSAGES.addLabel);
    // Repeatable, as in the Bash tool: the values join into the comma-separated key.
    flags.ADD_COMPLETION_LABELS = labels.join(',');
  }
}

// `--sandbox` and its sub-flags, validated as the Bash tool does; a sub-flag without `--sandbox`
// (even with SANDBOX_PROVIDER in .ralphrc) is an error, so a typo never runs on the host.
function readSandboxFlags(parsed: Record<string, unknown>, flags: Record<string, string | number | boolean>): void {
  const str = (name: string) => (parsed[name] === undefined ? undefined : String(parsed[name]));
  const provider = str('sandbox');
  const sub = { 'sandbox-image': ['image', 'SANDBOX_DOCKER_IMAGE'], 'sandbox-memory': ['memory', 'SANDBOX_DOCKER_MEMORY'], 'sandbox-cpus': ['cpus', 'SANDBOX_DOCKER_CPUS'], 'sandbox-network': ['network', 'SANDBOX_DOCKER_NETWORK'] } as const;
  if (provider === undefined) {
    const given = Object.keys(sub).find((name) => parsed[name] !== undefined);
    if (given) throw flagError(`--${given} requires --sandbox docker${given === 'sandbox-network' ? ' or --sandbox bwrap' : ''}`);
    return;
  }
  if (provider === '') throw flagError(`--sandbox requires a provider. Supported: ${SANDBOX_PROVIDERS.join(', ')}`);
  const refused = providerProblem(provider);
  if (refused) throw new RalphError('bad_flag', `--sandbox: ${refused.message}`, { hint: refused.hint });
  flags.SANDBOX_PROVIDER = provider;
  for (const [name, [field, key]] of Object.entries(sub)) {
    const value = str(name);
    if (value === undefined) continue;
    if (provider === 'bwrap' && field !== 'network') throw flagError(`--${name} applies to --sandbox docker only`);
    const problem = sandboxValueProblem(field, value);
    if (problem) throw flagError(`--${name}: ${problem}`);
    flags[key] = value;
  }
}

// yargs keeps only the last of a repeated flag (duplicate-arguments-array is off for all the
// others): read every `--flag VALUE` / `--flag=VALUE` from argv, up to a `--`.
function repeatedValues(argv: readonly string[], flag: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith(`${flag}=`)) values.push(arg.slice(flag.length + 1));
    else if (arg === flag) {
      const next = argv[i + 1];
      // yargs reads a following flag as a flag, not as this one's value.
      values.push(next === undefined || next.startsWith('-') ? '' : next);
      if (next !== undefined && !next.startsWith('-')) i++;
    }
  }
  return values;
}

/** The Bash tool's queue flags, as the `ralph-queue` command each one runs. */
function pickQueueCommand(parsed: Record<string, unknown>): QueueCommand {
  const haltOnFailure = Boolean(parsed['halt-on-failure']);
  if (parsed['queue-status']) return { kind: 'status', json: Boolean(parsed.json) };
  // --parallel is checked (1-16) with the other flags; 1 is the serial queue.
  if (parsed['process-queue'] || parsed['resume-queue']) return { kind: 'process', haltOnFailure, parallel: parsed.parallel === undefined ? 1 : Number(parsed.parallel) };
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
  if (QUEUE_FLAGS.some((flag) => parsed[flag] !== undefined && parsed[flag] !== false)) return 'queue';
  if (parsed.monitor) return 'monitor';
  return 'run';
}

export function validateAllowedTools(list: string): void {
  for (const raw of list.split(',')) {
    const tool = raw.trim();
    if (tool === '') continue;
    if (VALID_TOOLS.includes(tool) || /^Bash\(.+\)$/.test(tool)) continue;
    throw new RalphError('bad_flag', MESSAGES.invalidTool(tool), {
      details: [`Valid tools: ${VALID_TOOLS.join(', ')}`, 'Note: Bash(...) patterns with any content are allowed (e.g. Bash(git push *))'],
      hint: 'fix the --allowed-tools list',
    });
  }
}

function positiveInt(value: string, message: string): number {
  if (!/^[1-9][0-9]*$/.test(value)) throw flagError(message);
  return Number(value);
}

function nonNegativeInt(value: string, message: string): number {
  if (!/^\d+$/.test(value)) throw flagError(message);
  return Number(value);
}

function nonNegativeNumber(value: string, message: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(n)) throw flagError(message);
  return n;
}

/** A flag's number checked against its key's bounds in the config schema (one range for both). */
function inRange(flag: string, key: ConfigKey, raw: string, value: number): number {
  const spec = CONFIG_SCHEMA[key];
  if (value >= (spec.min ?? -Infinity) && value <= (spec.max ?? Infinity)) return value;
  throw flagError(`${flag} must be ${describeConfigRange(key)} (${key}), got ${JSON.stringify(raw)}`);
}

function flagError(message: string): RalphError {
  return new RalphError('bad_flag', message, { hint: 'run ralph --help for the list of options' });
}

export async function renderHelp(): Promise<string> {
  return renderRalphHelp();
}
