// Every `ralph` flag in one table: its spelling, short alias, the value it takes, the config key
// it sets, what it does and its help section. The parser (ralph-options.ts) reads, checks and
// maps each flag from its row, and `ralph --help` is rendered from the same rows, showing each
// value as the user types it (`--calls NUM`). A flag's type, bounds, choices and the default its
// help shows all come from its key in the config schema, never typed here.

import { CONFIG_SCHEMA, type ConfigKey } from '../../config/schema.js';
import type { FlagProblem, FlagRow } from '../flag-table.js';
import { allowedToolsProblem } from './allowed-tools-flag.js';
import { providerProblem, SANDBOX_PROVIDERS, sandboxValueProblem } from '../../sandbox/sandbox-settings.js';

/** A key's choices as `a, b or c`. */
function choicesOf(key: ConfigKey): string {
  const choices = CONFIG_SCHEMA[key].choices ?? [];
  return choices.length < 2 ? choices.join('') : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
}

const { min: TIMEOUT_MIN, max: TIMEOUT_MAX } = CONFIG_SCHEMA.CLAUDE_TIMEOUT_MINUTES;
const PARALLEL_MAX = CONFIG_SCHEMA.PARALLEL.max;

/** The help's groups, by what the user wants to do. */
export const RALPH_FLAG_SECTIONS = [
  'Getting started',
  'Running the loop',
  'Limits and budgets',
  'The agent',
  'Sandbox',
  'Status and recovery',
  'Issue queue',
  'GitHub issue lifecycle',
] as const;
export type RalphFlagSection = (typeof RALPH_FLAG_SECTIONS)[number];

export type { FlagProblem };

export interface RalphFlag extends FlagRow {
  section: RalphFlagSection;
  /**
   * The config key the flag sets (the flag layer wins over env, .ralphrc and defaults). A switch
   * sets its bool key (`--no-NAME` to off); a value is checked against the key's type, bounds
   * and choices (kind, min, max and choices come from the schema, never typed here); a list
   * key's flag may be repeated, every value kept. A number is refused in the words .ralphrc uses
   * (`--calls: expected a whole number from 1 to 100000, got "0"`); `invalid` is the Bash tool's
   * message for a text value where it has one; `choices` narrows the key's own (agent names for a
   * list key).
   */
  key?: ConfigKey;
  invalid?: string;
  /** A flag of this version only: the Bash tool has none by this name (listed in the help's compatibility notes). */
  ours?: true;
}

/** A `--sandbox-*` sub-flag's value, checked as SANDBOX_* keys are. */
const sandboxValue =
  (field: 'image' | 'memory' | 'cpus' | 'network') =>
  (value: string): FlagProblem | undefined => {
    const problem = sandboxValueProblem(field, value);
    return problem === undefined ? undefined : { message: `--sandbox-${field}: ${problem}` };
  };

export const RALPH_FLAGS: readonly RalphFlag[] = [
  { name: 'help', alias: 'h', describe: 'Show this help message', section: 'Getting started' },
  { name: 'version', describe: 'Show the ralph version', section: 'Getting started' },
  {
    name: 'calls',
    alias: 'c',
    arg: 'NUM',
    key: 'MAX_CALLS_PER_HOUR',
    describe: 'Max calls per hour',
    section: 'Limits and budgets',
  },
  { name: 'prompt', alias: 'p', arg: 'FILE', key: 'PROMPT_FILE', describe: 'Prompt file', section: 'Running the loop' },
  { name: 'status', alias: 's', describe: 'Show current status and exit', section: 'Status and recovery' },
  { name: 'monitor', alias: 'm', describe: 'Start with tmux session and live monitor', section: 'Running the loop' },
  { name: 'verbose', alias: 'v', key: 'RALPH_VERBOSE', describe: 'Show detailed progress updates during execution', section: 'Running the loop' },
  { name: 'live', alias: 'l', key: 'LIVE_OUTPUT', describe: "Show Claude Code's output in real time", section: 'Running the loop' },
  {
    name: 'timeout',
    alias: 't',
    arg: 'MIN',
    key: 'CLAUDE_TIMEOUT_MINUTES',
    describe: `Claude Code execution timeout in minutes, ${TIMEOUT_MIN}-${TIMEOUT_MAX}`,
    section: 'Limits and budgets',
  },
  { name: 'reset-circuit', describe: 'Reset the circuit breaker to CLOSED and exit', section: 'Status and recovery' },
  { name: 'circuit-status', describe: 'Show circuit breaker status and exit', section: 'Status and recovery' },
  {
    name: 'auto-reset-circuit',
    key: 'CB_AUTO_RESET',
    describe: 'Reset an OPEN circuit breaker at startup instead of waiting for the cooldown',
    section: 'Status and recovery',
  },
  { name: 'reset-session', describe: 'Reset the session state and exit', section: 'Status and recovery' },
  {
    name: 'accept-item',
    arg: 'ITEM',
    describe:
      'Count a plan item ralph holds open (ticked with no measured change, removed, moved to an optional section) as done: its number in ralph --status, or its text; repeatable; then exit',
    section: 'Status and recovery',
    ours: true,
  },
  { name: 'dry-run', key: 'DRY_RUN', describe: 'Show what would run, without calling Claude', section: 'Running the loop' },
  { name: 'notify', alias: 'n', key: 'ENABLE_NOTIFICATIONS', describe: 'Desktop notifications for completion, halts and limits', section: 'Running the loop' },
  { name: 'backup', alias: 'b', key: 'ENABLE_BACKUP', describe: 'Back up the working tree to a git ref before each loop', section: 'Status and recovery' },
  { name: 'rollback', arg: '[NAME]', describe: 'List backups, or restore the named one', section: 'Status and recovery' },
  {
    name: 'sandbox',
    arg: 'PROVIDER',
    key: 'SANDBOX_PROVIDER',
    invalid: `--sandbox requires a provider. Supported: ${SANDBOX_PROVIDERS.join(', ')}`,
    check: (value) => {
      const refused = providerProblem(value);
      return refused && { message: `--sandbox: ${refused.message}`, hint: refused.hint };
    },
    describe: 'Run the agent in a sandbox: docker or bwrap (never falls back to the host)',
    section: 'Sandbox',
  },
  {
    name: 'allow-root-agent',
    key: 'ALLOW_ROOT_AGENT',
    describe: 'Run as root with no sandbox on a root-owned project: let the agent run as root (a throw-away machine only)',
    section: 'Sandbox',
    ours: true,
  },
  {
    name: 'sandbox-build',
    describe: 'Build the Docker sandbox image (SANDBOX_DOCKER_IMAGE) from the Dockerfile that ships with ralph, then exit',
    section: 'Sandbox',
  },
  {
    name: 'sandbox-image',
    arg: 'IMAGE',
    key: 'SANDBOX_DOCKER_IMAGE',
    check: sandboxValue('image'),
    describe: 'With --sandbox docker: the image',
    section: 'Sandbox',
  },
  {
    name: 'sandbox-memory',
    arg: 'SIZE',
    key: 'SANDBOX_DOCKER_MEMORY',
    check: sandboxValue('memory'),
    describe: 'With --sandbox docker: memory limit, e.g. 512m',
    section: 'Sandbox',
  },
  {
    name: 'sandbox-cpus',
    arg: 'NUM',
    key: 'SANDBOX_DOCKER_CPUS',
    check: sandboxValue('cpus'),
    describe: 'With --sandbox docker: CPU limit, e.g. 1.5',
    section: 'Sandbox',
  },
  {
    name: 'sandbox-network',
    arg: 'MODE',
    key: 'SANDBOX_DOCKER_NETWORK',
    check: sandboxValue('network'),
    defaultNote: '; bwrap shares the host network unless none',
    describe: 'With --sandbox: none, bridge or host',
    section: 'Sandbox',
  },
  { name: 'show-tool-args', key: 'LIVE_SHOW_TOOL_ARGS', describe: "With --live: show each tool call's main argument", section: 'Running the loop' },
  { name: 'queue-status', describe: 'Show the issue queue and exit (see ralph-queue --help)', section: 'Issue queue' },
  {
    name: 'process-queue',
    describe: 'Process the pending queued issues one by one (with --parallel NUM: NUM at a time, in worktrees), then exit',
    section: 'Issue queue',
  },
  { name: 'resume-queue', describe: 'Resume processing the remaining pending issues', section: 'Issue queue' },
  {
    name: 'parallel-abandon',
    describe: 'Close the unfinished --parallel run, keeping its branches, worktrees and backup refs (printed), and exit',
    section: 'Running the loop',
    ours: true,
  },
  {
    name: 'halt-on-failure',
    describe: 'With --process-queue, --resume-queue or --parallel: stop at the first failed issue or unit',
    section: 'Running the loop',
  },
  { name: 'queue-next', describe: 'Print the id of the next ready queued issue and exit', section: 'Issue queue' },
  { name: 'queue-clear', describe: 'Remove all items from the queue and exit', section: 'Issue queue' },
  { name: 'queue-remove', arg: 'ID', describe: 'Remove one item from the queue by id or issue number and exit', section: 'Issue queue' },
  {
    name: 'output-format',
    arg: 'FMT',
    key: 'CLAUDE_OUTPUT_FORMAT',
    invalid: "--output-format must be 'json' or 'text'",
    describe: `Claude output format: ${choicesOf('CLAUDE_OUTPUT_FORMAT')}`,
    section: 'The agent',
  },
  {
    name: 'allowed-tools',
    arg: 'LIST',
    key: 'ALLOWED_TOOLS',
    defaultNote: false,
    check: allowedToolsProblem,
    describe: 'Comma-separated tools Claude may use without asking',
    section: 'The agent',
  },
  {
    name: 'continue',
    key: 'SESSION_CONTINUITY',
    defaultNote: '; --no-continue turns it off',
    describe: 'Resume the Claude session between loops',
    section: 'The agent',
  },
  {
    name: 'session-expiry',
    arg: 'HOURS',
    key: 'SESSION_EXPIRY_HOURS',
    describe: 'Hours before a Claude session is started fresh',
    section: 'The agent',
  },
  {
    name: 'github-issue',
    arg: 'REF',
    key: 'GITHUB_ISSUE',
    invalid: '--github-issue requires an issue reference (N, #N, owner/repo#N or an issue URL)',
    describe: 'Work on this GitHub issue (N, #N, owner/repo#N or an issue URL); the flags below act on it through gh',
    section: 'GitHub issue lifecycle',
  },
  {
    name: 'comment-progress',
    key: 'COMMENT_PROGRESS',
    describe: 'Post a progress comment on the issue every --comment-interval loops',
    section: 'GitHub issue lifecycle',
  },
  {
    name: 'comment-interval',
    arg: 'NUM',
    key: 'COMMENT_INTERVAL',
    describe: 'Loops between progress comments',
    section: 'GitHub issue lifecycle',
  },
  { name: 'close-summary', key: 'CLOSE_SUMMARY', describe: 'On completion: post a summary comment on the issue', section: 'GitHub issue lifecycle' },
  { name: 'create-pr', key: 'CREATE_PR', describe: 'On completion: push the branch to origin and open a pull request', section: 'GitHub issue lifecycle' },
  { name: 'draft-pr', key: 'DRAFT_PR', describe: 'Open the pull request as a draft', section: 'GitHub issue lifecycle' },
  { name: 'link-issue', key: 'LINK_ISSUE', describe: 'Put "Closes #N" in the pull request body', section: 'GitHub issue lifecycle' },
  {
    name: 'create-followups',
    key: 'CREATE_FOLLOWUPS',
    describe: 'On completion: open a follow-up issue for TODO/FIXME/HACK/XXX lines added during the run',
    section: 'GitHub issue lifecycle',
  },
  {
    name: 'followup-label',
    arg: 'LABEL',
    key: 'FOLLOWUP_LABEL',
    invalid: '--followup-label requires a label',
    describe: 'Label of the follow-up issue',
    section: 'GitHub issue lifecycle',
  },
  {
    name: 'add-label',
    arg: 'LABEL',
    key: 'ADD_COMPLETION_LABELS',
    invalid: '--add-label requires a label',
    describe: 'With --auto-close: add this label to the issue (repeatable)',
    section: 'GitHub issue lifecycle',
  },
  { name: 'auto-close', key: 'AUTO_CLOSE', describe: 'On completion: close the issue', section: 'GitHub issue lifecycle' },
  { name: 'agent', arg: 'NAME', key: 'AGENT_PROVIDER', describe: `Agent CLI to run: ${choicesOf('AGENT_PROVIDER')}`, section: 'The agent', ours: true },
  {
    name: 'fallback-agent',
    arg: 'NAME',
    key: 'FALLBACK_AGENTS',
    choices: CONFIG_SCHEMA.AGENT_PROVIDER.choices,
    describe: 'Agent to run on while the one before it is at its usage limit (repeatable; FALLBACK_AGENTS)',
    section: 'The agent',
    ours: true,
  },
  {
    name: 'parallel',
    arg: 'NUM',
    key: 'PARALLEL',
    describe: `Work on NUM plan items (with --process-queue: queue items) at once (2-${PARALLEL_MAX}), each in its own git worktree and branch, merged back one at a time; with --monitor, a tmux window per unit (unit-1, unit-2, ...) shows its live output`,
    section: 'Running the loop',
    ours: true,
  },
  {
    name: 'parallel-land',
    arg: 'HOW',
    key: 'PARALLEL_LAND',
    invalid: "--parallel-land must be 'merge' or 'pr'",
    describe: `With --parallel: how each unit's work lands: ${choicesOf('PARALLEL_LAND')} (merge: into the checked-out branch; pr: its branch pushed to origin and a pull request opened with gh, for review)`,
    section: 'Running the loop',
    ours: true,
  },
  // 0 means unlimited on the command line as in .ralphrc (and lets a flag lift a limit set there).
  {
    name: 'max-loops',
    arg: 'NUM',
    key: 'MAX_LOOPS',
    defaultNote: ' = unlimited',
    describe: 'Stop after NUM loops, exit 3',
    section: 'Limits and budgets',
    ours: true,
  },
  {
    name: 'max-cost',
    arg: 'USD',
    key: 'MAX_COST_USD',
    defaultNote: ' = unlimited',
    describe: 'Stop when this run has spent USD dollars, exit 3',
    section: 'Limits and budgets',
    ours: true,
  },
  {
    name: 'max-run-minutes',
    arg: 'MIN',
    key: 'MAX_RUN_MINUTES',
    defaultNote: ' = unlimited',
    describe: 'Stop after MIN minutes, exit 3',
    section: 'Limits and budgets',
    ours: true,
  },
  {
    name: 'delay',
    arg: 'SECS',
    key: 'LOOP_DELAY_SECONDS',
    describe: 'Seconds to wait between loops',
    section: 'Running the loop',
    ours: true,
  },
  { name: 'fresh', describe: 'Start a new run instead of resuming an unfinished one', section: 'Running the loop', ours: true },
  { name: 'config', describe: 'Print every effective setting and where it came from', section: 'Getting started', ours: true },
  {
    name: 'demo',
    describe:
      "Run the whole loop on a throw-away project with ralph's built-in scripted agent: no account, nothing spent, nothing kept (with --monitor: in tmux)",
    section: 'Getting started',
    ours: true,
  },
  {
    name: 'doctor',
    describe:
      'Check that this machine and project are ready to run (Node, Claude CLI and login, git, tmux, .ralph/ files, .gitignore, test command, the sandbox asked for); exit 1 if not',
    section: 'Getting started',
    ours: true,
  },
  { name: 'json', describe: 'With --status, --config or --rollback: print JSON', section: 'Status and recovery', ours: true },
  {
    name: 'jq',
    arg: 'FILTER',
    describe: 'Filter the JSON output with a jq expression, e.g. --jq .status (built in; no jq needed)',
    section: 'Status and recovery',
    ours: true,
  },
  { name: 'keep-monitor', describe: 'With --monitor: keep the tmux session after the loop ends', section: 'Running the loop', ours: true },
  {
    name: 'web',
    describe: 'Also serve a read-only live view of the run in a browser (prints its address with a token; closed when the loop ends); see ralph-monitor --web',
    section: 'Running the loop',
    ours: true,
  },
  {
    name: 'web-port',
    arg: 'N',
    kind: 'int',
    min: 1,
    max: 65535,
    invalid: '--web-port requires a port number from 1 to 65535',
    describe: 'With --web: the port to listen on (default: a free one)',
    defaultNote: false,
    section: 'Running the loop',
    ours: true,
  },
  {
    name: 'web-host',
    arg: 'ADDR',
    describe: 'With --web: the address to listen on (default 127.0.0.1)',
    defaultNote: false,
    section: 'Running the loop',
    ours: true,
  },
  { name: 'force', describe: 'With --rollback: restore even with uncommitted changes', section: 'Status and recovery', ours: true },
  { name: 'debug', describe: 'Print stack traces for internal errors', section: 'Status and recovery', ours: true },
];
