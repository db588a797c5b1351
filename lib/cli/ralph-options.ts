// The `ralph` command line: every flag, its Bash-tool spelling and validation message, and the
// config key it sets. Parsing turns argv into an immediate action (help, status, …) or a run,
// plus the flag layer of the configuration (flags win over env, .ralphrc and defaults).

import yargs, { type Argv } from 'yargs';
import { RalphError } from '../errors.js';

/** What `ralph` was asked to do, in the Bash tool's order of "immediate" flags. */
export type RalphAction =
  | 'help'
  | 'version'
  | 'status'
  | 'config'
  | 'reset-circuit'
  | 'circuit-status'
  | 'reset-session'
  | 'rollback'
  | 'monitor'
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
  rollbackTarget?: string;
  force: boolean;
  /** argv as given, for `--monitor` forwarding. */
  argv: string[];
}

const VALID_TOOLS = [
  'Write', 'Read', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'Task', 'TodoWrite', 'WebFetch',
  'WebSearch', 'Bash', 'Bash(git *)', 'Bash(npm *)', 'Bash(bats *)', 'Bash(python *)',
  'Bash(node *)', 'NotebookEdit',
];

export const MESSAGES = {
  timeout: 'Timeout must be a positive integer between 1 and 120 minutes',
  outputFormat: "--output-format must be 'json' or 'text'",
  sessionExpiry: '--session-expiry requires a positive integer (hours)',
  calls: '--calls requires a positive integer (calls per hour)',
  maxLoops: '--max-loops requires a positive integer',
  maxCost: '--max-cost requires a positive number (US dollars)',
  maxRunMinutes: '--max-run-minutes requires a positive integer (minutes)',
  delay: '--delay requires a non-negative number of seconds',
  invalidTool: (tool: string) => `Invalid tool in --allowed-tools: '${tool}'`,
};

/** Flags the Bash tool has that this version recognises but does not implement yet. */
const UNSUPPORTED_FLAGS = [
  'sandbox', 'sandbox-image', 'sandbox-memory', 'sandbox-cpus', 'sandbox-network',
  'sandbox-template', 'sandbox-id', 'sandbox-timeout', 'sandbox-keep-alive', 'sandbox-max-cost',
  'sandbox-cost-alert', 'sync-include', 'sync-exclude', 'queue-status', 'process-queue',
  'resume-queue', 'queue-next', 'queue-clear', 'queue-remove', 'github-issue', 'comment-progress',
  'comment-interval', 'auto-close', 'close-summary', 'create-pr', 'link-issue', 'draft-pr',
  'create-followups', 'followup-label', 'add-label',
];

export function buildRalphParser(argv: string[]): Argv {
  const parser = yargs(argv)
    .scriptName('ralph')
    .usage(
      'Ralph Loop for Claude Code\n\nUsage: ralph [OPTIONS]\n\n' +
        'IMPORTANT: This command must be run from a Ralph project directory\n' +
        '(one with .ralph/PROMPT.md; create it with ralph-enable, ralph-setup or ralph-import).',
    )
    .help(false)
    .version(false)
    .strictOptions()
    .parserConfiguration({ 'camel-case-expansion': false, 'boolean-negation': true, 'duplicate-arguments-array': false })
    .option('help', { alias: 'h', type: 'boolean', describe: 'Show this help message' })
    .option('version', { type: 'boolean', describe: 'Show the ralph version' })
    .option('calls', { alias: 'c', type: 'string', describe: 'Max calls per hour (default: 100)' })
    .option('prompt', { alias: 'p', type: 'string', describe: 'Prompt file (default: .ralph/PROMPT.md)' })
    .option('status', { alias: 's', type: 'boolean', describe: 'Show current status and exit' })
    .option('json', { type: 'boolean', describe: 'With --status, --config or --rollback: print JSON' })
    .option('jq', { type: 'string', describe: 'Filter the JSON output with a jq expression, e.g. --jq .status (built in; no jq needed)' })
    .option('config', { type: 'boolean', describe: 'Print every effective setting and where it came from' })
    .option('monitor', { alias: 'm', type: 'boolean', describe: 'Start with tmux session and live monitor' })
    .option('keep-monitor', { type: 'boolean', describe: 'With --monitor: keep the tmux session after the loop ends' })
    .option('verbose', { alias: 'v', type: 'boolean', describe: 'Show detailed progress updates during execution' })
    .option('live', { alias: 'l', type: 'boolean', describe: "Show Claude Code's output in real time" })
    .option('timeout', { alias: 't', type: 'string', describe: 'Claude Code execution timeout in minutes, 1-120 (default: 15)' })
    .option('output-format', { type: 'string', describe: "Claude output format: json or text (default: json)" })
    .option('allowed-tools', { type: 'string', describe: 'Comma-separated tools Claude may use without asking' })
    .option('continue', { type: 'boolean', describe: 'Resume the Claude session between loops (default: on; --no-continue turns it off)' })
    .option('session-expiry', { type: 'string', describe: 'Hours before a Claude session is started fresh (default: 24)' })
    .option('reset-circuit', { type: 'boolean', describe: 'Reset the circuit breaker to CLOSED and exit' })
    .option('circuit-status', { type: 'boolean', describe: 'Show circuit breaker status and exit' })
    .option('auto-reset-circuit', { type: 'boolean', describe: 'Reset an OPEN circuit breaker at startup instead of waiting for the cooldown' })
    .option('reset-session', { type: 'boolean', describe: 'Reset the session state and exit' })
    .option('dry-run', { type: 'boolean', describe: 'Show what would run, without calling Claude' })
    .option('notify', { alias: 'n', type: 'boolean', describe: 'Desktop notifications for completion, halts and limits' })
    .option('backup', { alias: 'b', type: 'boolean', describe: 'Back up the working tree to a git ref before each loop' })
    .option('rollback', { type: 'string', describe: 'List backups, or restore the named one' })
    .option('force', { type: 'boolean', describe: 'With --rollback: restore even with uncommitted changes' })
    .option('show-tool-args', { type: 'boolean', describe: 'With --live: show each tool call\'s main argument' })
    .option('max-loops', { type: 'string', describe: 'Stop after N loops (exit 3) (default: unlimited)' })
    .option('max-cost', { type: 'string', describe: 'Stop when this run has spent USD (exit 3) (default: unlimited)' })
    .option('max-run-minutes', { type: 'string', describe: 'Stop after this many minutes (exit 3) (default: unlimited)' })
    .option('delay', { type: 'string', describe: 'Seconds to wait between loops (default: 0)' })
    .option('fresh', { type: 'boolean', describe: 'Start a new run instead of resuming an unfinished one' })
    .option('debug', { type: 'boolean', describe: 'Print stack traces for internal errors' })
    .group(['help', 'version', 'calls', 'prompt', 'status', 'monitor', 'verbose', 'live', 'timeout', 'reset-circuit', 'circuit-status', 'auto-reset-circuit', 'reset-session', 'dry-run', 'notify', 'backup', 'rollback', 'show-tool-args'], 'Options:')
    .group(['output-format', 'allowed-tools', 'continue', 'session-expiry'], 'Modern CLI Options:')
    .group(['max-loops', 'max-cost', 'max-run-minutes', 'delay', 'fresh', 'config', 'json', 'jq', 'keep-monitor', 'force', 'debug'], 'Beyond the Bash version:')
    .epilogue(
      'Files: .ralph/PROMPT.md (instructions), .ralph/fix_plan.md (checklist), .ralph/AGENT.md,\n' +
        '.ralph/status.json (state), .ralph/logs/ (ralph.log, claude_output_*.log, metrics.jsonl)\n\n' +
        'Exit codes: 0 done, 1 could not run, 2 halted by a guard, 3 stopped at a limit,\n' +
        '129/130/131/143 interrupted (SIGHUP/SIGINT/SIGQUIT/SIGTERM).\n\n' +
        'Examples:\n  ralph --monitor\n  ralph --calls 50 --max-loops 10 --live\n  ralph --status --json --jq .status',
    )
    .fail((message, error) => {
      throw error ?? new RalphError('bad_flag', rewriteYargsMessage(message), { hint: 'run ralph --help for the list of options' });
    });
  for (const flag of UNSUPPORTED_FLAGS) parser.option(flag, { type: 'string', hidden: true });
  return parser;
}

function rewriteYargsMessage(message: string): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown) {
    const names = unknown[1]!.split(', ').map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
    return `Unknown option: ${names.join(', ')}`;
  }
  return message;
}

export function parseRalphArgs(argv: string[]): RalphCliOptions {
  const parsed = buildRalphParser(argv).parseSync() as Record<string, unknown>;
  for (const flag of UNSUPPORTED_FLAGS) {
    if (parsed[flag] !== undefined) {
      throw new RalphError('unsupported_flag', `--${flag} is not supported by this version of ralph`, {
        hint: 'sandbox, queue and GitHub-lifecycle flags are not implemented yet; run without it',
      });
    }
  }
  const positional = (parsed._ as unknown[]) ?? [];
  if (positional.length > 0) {
    throw new RalphError('bad_flag', `Unknown option: ${String(positional[0])}`, { hint: 'run ralph --help for the list of options' });
  }

  const flags: Record<string, string | number | boolean> = {};
  const str = (name: string) => (parsed[name] === undefined ? undefined : String(parsed[name]));

  const calls = str('calls');
  if (calls !== undefined) flags.MAX_CALLS_PER_HOUR = positiveInt(calls, MESSAGES.calls);
  if (str('prompt') !== undefined) flags.PROMPT_FILE = str('prompt')!;
  if (parsed.verbose) flags.RALPH_VERBOSE = true;
  if (parsed.live) flags.LIVE_OUTPUT = true;
  const timeout = str('timeout');
  if (timeout !== undefined) {
    const minutes = positiveInt(timeout, MESSAGES.timeout);
    if (minutes > 120) throw flagError(MESSAGES.timeout);
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
  if (expiry !== undefined) flags.SESSION_EXPIRY_HOURS = positiveInt(expiry, MESSAGES.sessionExpiry);
  if (parsed['auto-reset-circuit']) flags.CB_AUTO_RESET = true;
  if (parsed['dry-run']) flags.DRY_RUN = true;
  if (parsed.notify) flags.ENABLE_NOTIFICATIONS = true;
  if (parsed.backup) flags.ENABLE_BACKUP = true;
  if (parsed['show-tool-args']) flags.LIVE_SHOW_TOOL_ARGS = true;
  const maxLoops = str('max-loops');
  if (maxLoops !== undefined) flags.MAX_LOOPS = positiveInt(maxLoops, MESSAGES.maxLoops);
  const maxCost = str('max-cost');
  if (maxCost !== undefined) flags.MAX_COST_USD = positiveNumber(maxCost, MESSAGES.maxCost);
  const maxMinutes = str('max-run-minutes');
  if (maxMinutes !== undefined) flags.MAX_RUN_MINUTES = positiveInt(maxMinutes, MESSAGES.maxRunMinutes);
  const delay = str('delay');
  if (delay !== undefined) {
    const seconds = Number(delay);
    if (!/^\d+(\.\d+)?$/.test(delay) || !Number.isFinite(seconds)) throw flagError(MESSAGES.delay);
    flags.LOOP_DELAY_SECONDS = seconds;
  }

  const action = pickAction(parsed);
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
    rollbackTarget: str('rollback') || undefined,
    force: Boolean(parsed.force),
    argv,
  };
}

/** The immediate actions that can print JSON (and so take --jq). */
const JSON_ACTIONS: RalphAction[] = ['status', 'config', 'rollback'];

function pickAction(parsed: Record<string, unknown>): RalphAction {
  if (parsed.help) return 'help';
  if (parsed.version) return 'version';
  if (parsed.status) return 'status';
  if (parsed.config) return 'config';
  if (parsed['reset-circuit']) return 'reset-circuit';
  if (parsed['circuit-status']) return 'circuit-status';
  if (parsed['reset-session']) return 'reset-session';
  if (parsed.rollback !== undefined) return 'rollback';
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

function positiveNumber(value: string, message: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0)) throw flagError(message);
  return n;
}

function flagError(message: string): RalphError {
  return new RalphError('bad_flag', message, { hint: 'run ralph --help for the list of options' });
}

export function renderHelp(): Promise<string> {
  return buildRalphParser([]).getHelp();
}
