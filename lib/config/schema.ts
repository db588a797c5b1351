// Every configuration key ralph knows, in one table: its type, default, one-line description,
// the env/.ralphrc names that set it, and its validation. Everything else in lib/config (the
// .ralphrc reader, the layered loader, `ralph --config`) is driven by this table.

import { findClosestName } from '../text/closest-name.js';
import { checkNumberText } from '../text/number-text.js';

export type ValueType = 'int' | 'number' | 'bool' | 'string' | 'list';

interface ValueOfType {
  int: number;
  number: number;
  bool: boolean;
  string: string;
  list: string[];
}

export interface KeySpec<T extends ValueType = ValueType> {
  type: T;
  default: ValueOfType[T];
  description: string;
  /** Other names that set this key, in env and in .ralphrc (the Bash tool's internal names). */
  aliases?: readonly string[];
  min?: number;
  max?: number;
  /** Allowed string values ('' included when empty is allowed). */
  choices?: readonly string[];
  /** Accepted for compatibility but not used: setting it changes nothing (ralph warns). */
  unused?: boolean;
}

type Extra = Omit<KeySpec, 'type' | 'default' | 'description'>;

function defineKey<T extends ValueType>(type: T, d: ValueOfType[T], description: string, extra: Extra = {}): KeySpec<T> {
  // Numbers are never negative unless a key says otherwise.
  const min = type === 'int' || type === 'number' ? { min: 0 } : {};
  return { type, default: d, description, ...min, ...extra };
}
const int = (d: number, description: string, extra?: Extra) => defineKey('int', d, description, extra);
const num = (d: number, description: string, extra?: Extra) => defineKey('number', d, description, extra);
const bool = (d: boolean, description: string, extra?: Extra) => defineKey('bool', d, description, extra);
const str = (d: string, description: string, extra?: Extra) => defineKey('string', d, description, extra);
const list = (d: string[], description: string) => defineKey('list', d, description);

// Upper bounds: every number has one, so a typo or a planted 1e23 is an error naming the key
// instead of a guard that is off in effect.
/** Loops, thresholds and counts: more than any run makes. */
const COUNT_MAX = 10_000;
const DAY_SECONDS = 86_400;
const DAY_MINUTES = 1440;
const WEEK_MINUTES = 7 * DAY_MINUTES;
/** The longest agent run, in minutes: CLAUDE_TIMEOUT_MINUTES (`--timeout`) and CLAUDE_TIMEOUT_SECONDS share it. */
const AGENT_TIMEOUT_MAX_MINUTES = 120;

/** The agent CLIs ralph can run, in the order help and errors list them (lib/agents/registry.ts has one adapter each). */
export const AGENT_NAMES = ['claude', 'codex', 'gemini', 'opencode'] as const;

const ACCEPTED = 'accepted for compatibility, not used yet';
const accepted = (d: string) => str(d, ACCEPTED, { unused: true });

export const DEFAULT_ALLOWED_TOOLS =
  'Write,Read,Edit,Bash(git add *),Bash(git commit *),Bash(git diff *),Bash(git log *),' +
  'Bash(git status),Bash(git status *),Bash(git push *),Bash(git pull *),Bash(git fetch *),' +
  'Bash(git checkout *),Bash(git branch *),Bash(git stash *),Bash(git merge *),Bash(git tag *),' +
  'Bash(npm *),Bash(pytest)';

const SPECS = {
  // Keys of the Bash tool's .ralphrc
  PROJECT_NAME: str('', 'Project name (informational)'),
  PROJECT_TYPE: str('', 'Project type (informational)'),
  CLAUDE_CODE_CMD: str('claude', 'Command that runs Claude Code'),
  CLAUDE_MIN_VERSION: str('2.0.76', 'Oldest Claude Code CLI version ralph accepts'),
  CLAUDE_AUTO_UPDATE: bool(true, 'Check npm for a newer Claude Code CLI at startup and say so (never blocks; does not install)'),
  CLAUDE_MODEL: str('', 'Model passed as --model (empty: CLI default)'),
  CLAUDE_EFFORT: str('', 'Effort passed as --effort (empty: CLI default)', {
    choices: ['', 'low', 'medium', 'high', 'xhigh', 'max'],
  }),
  MAX_CALLS_PER_HOUR: int(100, 'Agent calls allowed per hour', { min: 1, max: 100_000 }),
  MAX_TOKENS_PER_HOUR: int(0, 'Tokens allowed per hour (0 = unlimited)', { max: 1_000_000_000 }),
  CLAUDE_TIMEOUT_MINUTES: int(15, 'Time limit for one agent run, in minutes', { min: 1, max: AGENT_TIMEOUT_MAX_MINUTES }),
  CLAUDE_OUTPUT_FORMAT: str('json', 'Agent output format', { choices: ['json', 'text'] }),
  ALLOWED_TOOLS: str(DEFAULT_ALLOWED_TOOLS, 'Comma-separated tools passed as --allowedTools (empty: none)', {
    aliases: ['CLAUDE_ALLOWED_TOOLS'],
  }),
  SESSION_CONTINUITY: bool(true, 'Resume the Claude session between loops', { aliases: ['CLAUDE_USE_CONTINUE'] }),
  SESSION_EXPIRY_HOURS: int(24, 'Start a fresh session after this many hours', {
    min: 1,
    max: 8760,
    aliases: ['CLAUDE_SESSION_EXPIRY_HOURS'],
  }),
  RALPH_VERBOSE: bool(false, 'Verbose progress output', { aliases: ['VERBOSE_PROGRESS'] }),
  PROMPT_FILE: str('.ralph/PROMPT.md', 'Prompt file, relative to the project directory'),
  FIX_PLAN_FILE: str('.ralph/fix_plan.md', 'Task checklist, relative to the project directory (must stay inside it)'),
  AGENT_FILE: str('.ralph/AGENT.md', 'Build and run notes for the agent, relative to the project directory (must stay inside it)'),
  CB_NO_PROGRESS_THRESHOLD: int(3, 'Open the circuit breaker after this many loops without progress', { max: COUNT_MAX }),
  CB_SAME_ERROR_THRESHOLD: int(5, 'Open the circuit breaker after the same error this many loops in a row', { max: COUNT_MAX }),
  CB_PERMISSION_DENIAL_THRESHOLD: int(
    2,
    "Open the circuit breaker after permission denials in this many loops in a row. The exit check halts the run after the first loop with a denial anyway (as the Bash tool does), before the breaker's count is reached; only at 1 is the breaker the rule that stops it",
    { max: COUNT_MAX },
  ),
  CB_OUTPUT_DECLINE_THRESHOLD: int(70, 'Accepted, not used: reply length is no progress signal (the Bash tool never used it either)', {
    max: 100,
    unused: true,
  }),
  CB_COOLDOWN_MINUTES: int(30, 'Minutes before an open circuit breaker may be retried', { max: WEEK_MINUTES }),
  CB_AUTO_RESET: bool(false, 'Reset an open circuit breaker at startup'),
  ENABLE_NOTIFICATIONS: bool(false, 'Desktop notifications'),
  ENABLE_BACKUP: bool(false, 'Back up the working tree to a git branch before each loop'),
  LIVE_SHOW_TOOL_ARGS: bool(false, 'Show tool arguments in live output'),
  OPTIONAL_SECTIONS: list(['Optional', 'Future', 'Future Enhancements', 'Nice to Have'], 'fix_plan.md sections whose open items do not block completion'),
  RALPH_SHELL_INIT_FILE: str('', 'Ignored: ralph never runs shell code; export variables before starting ralph'),
  TASK_SOURCES: str('local', 'Task sources (local, beads, github)'),
  GITHUB_TASK_LABEL: str('ralph-task', 'GitHub label of issues imported as tasks'),
  BEADS_FILTER: str('status:open', 'Beads filter for imported tasks'),
  // GitHub issue lifecycle (`ralph --github-issue REF`); all opt-in, nothing happens without GITHUB_ISSUE
  GITHUB_ISSUE: str('', 'GitHub issue this run works on: N, #N, owner/repo#N or an issue URL (empty: none)'),
  COMMENT_PROGRESS: bool(false, 'Post a progress comment on the issue every COMMENT_INTERVAL loops'),
  COMMENT_INTERVAL: int(5, 'Loops between progress comments', { min: 1, max: COUNT_MAX }),
  AUTO_CLOSE: bool(false, 'On completion: add ADD_COMPLETION_LABELS and close the issue'),
  CLOSE_SUMMARY: bool(false, 'On completion: post a summary comment on the issue'),
  CREATE_PR: bool(false, 'On completion: push the branch and open a pull request'),
  LINK_ISSUE: bool(false, 'Put "Closes #N" in the pull request body'),
  DRAFT_PR: bool(false, 'Open the pull request as a draft'),
  CREATE_FOLLOWUPS: bool(false, 'On completion: open a follow-up issue for TODO/FIXME/HACK/XXX lines added during the run'),
  FOLLOWUP_LABEL: str('tech-debt', 'Label of follow-up issues (empty: none)'),
  ADD_COMPLETION_LABELS: list([], 'Comma-separated labels added to the issue before AUTO_CLOSE closes it'),
  // Sandboxes (lib/sandbox/); E2B and sync: accepted, not used
  SANDBOX_PROVIDER: str(
    '',
    'Run the agent in a sandbox: docker or bwrap (empty: on the host); one that is unknown or unavailable stops the run, never falls back to the host',
  ),
  SANDBOX_DOCKER_IMAGE: str('ralph-sandbox:latest', 'Docker sandbox: the image the agent runs in'),
  SANDBOX_DOCKER_MEMORY: str('4g', 'Docker sandbox: memory limit (e.g. 4g, 512m)'),
  SANDBOX_DOCKER_CPUS: str('2', 'Docker sandbox: CPU limit (e.g. 2 or 1.5)'),
  SANDBOX_DOCKER_NETWORK: str('bridge', 'Sandbox network: none, bridge or host (bwrap: none cuts it off, else the host network is shared)'),
  SANDBOX_BWRAP_BIND: list([], 'bwrap sandbox: extra paths shown read-only inside, comma-separated (toolchains outside /usr)'),
  SANDBOX_ENV: list(
    [],
    "Sandboxes: more environment variables passed to the agent, comma-separated names or PREFIX* (beyond PATH, locale, terminal, proxies and the running agent's credentials)",
  ),
  ALLOW_ROOT_AGENT: bool(
    false,
    "ralph run as root with no sandbox on a project that root owns: run the agent and the gate's commands as root (a throw-away machine only; else they run as the project's owner, and a root-owned project is refused)",
  ),
  SANDBOX_E2B_TEMPLATE: accepted('base'),
  SANDBOX_E2B_SANDBOX_ID: accepted(''),
  SANDBOX_E2B_TIMEOUT: accepted('3600'),
  SANDBOX_E2B_KEEP_ALIVE: accepted('false'),
  SANDBOX_E2B_MAX_COST: accepted(''),
  SANDBOX_E2B_COST_ALERT: accepted(''),
  SANDBOX_E2B_COST_PER_HOUR: accepted('0.10'),
  SYNC_INCLUDE: accepted(''),
  SYNC_EXCLUDE: accepted(''),
  SYNC_MAX_FILE_SIZE: accepted('10485760'),
  SYNC_LARGE_FILE_ACTION: accepted('warn'),
  // Ours
  AGENT_PROVIDER: str('claude', 'Agent CLI that runs each loop', { choices: AGENT_NAMES }),
  AGENT_MODEL: str('', "Model for the agent, passed as its model flag (empty: CLAUDE_MODEL for Claude, else the CLI's default)"),
  CODEX_CMD: str('codex', 'Command that runs the OpenAI Codex CLI'),
  GEMINI_CMD: str('gemini', 'Command that runs the Gemini CLI'),
  OPENCODE_CMD: str('opencode', 'Command that runs OpenCode'),
  FALLBACK_AGENTS: list([], 'Agents to run on, in order, while the agent before them is at its usage limit (e.g. codex,gemini)'),
  MAX_LOOPS: int(0, 'Stop after this many loops (0 = unlimited)', { max: 1_000_000 }),
  PARALLEL: int(1, 'Plan items worked on at once, each in its own git worktree and branch, merged back one at a time (1 = the single loop)', {
    min: 1,
    max: 16,
  }),
  PARALLEL_LAND: str(
    'merge',
    "How --parallel lands each unit's work: merge (into the checked-out branch, here) or pr (its branch pushed to origin, a pull request opened)",
    {
      choices: ['merge', 'pr'],
    },
  ),
  MAX_COST_USD: num(0, 'Stop when the run has cost this many US dollars (0 = unlimited)', { max: 1_000_000 }),
  MAX_RUN_MINUTES: int(0, 'Stop after the run has lasted this many minutes (0 = unlimited)', { max: 366 * DAY_MINUTES }),
  LOOP_DELAY_SECONDS: num(0, 'Pause between loops, in seconds', { max: DAY_SECONDS }),
  EXIT_REQUIRES_PLAN_COMPLETE: bool(true, 'Finish only when fix_plan.md has no open required items'),
  EXIT_CODES: str('ralph', 'Exit codes of a loop that stops: ralph (2 halted by a guard, 3 stopped at a limit) or bash (0 for every stop, as the Bash tool)', {
    choices: ['ralph', 'bash'],
  }),
  COMPLETION_CONFLICT_LIMIT: int(3, 'Loops the agent may claim completion while the plan is open before halting', { max: COUNT_MAX }),
  CLAUDE_TIMEOUT_SECONDS: int(0, 'Agent time limit in seconds, overriding the minutes (0 = use minutes)', { max: AGENT_TIMEOUT_MAX_MINUTES * 60 }),
  KILL_GRACE_SECONDS: int(5, 'Seconds between SIGTERM and SIGKILL when stopping the agent', { max: 600 }),
  FAILURE_RETRY_SECONDS: int(30, 'Pause after a failed agent run before the next loop, in seconds', { max: DAY_SECONDS }),
  USAGE_LIMIT_WAIT_MINUTES: int(60, 'Wait after a usage limit when the CLI states no reset time', { max: 31 * DAY_MINUTES }),
  USAGE_LIMIT_MARGIN_SECONDS: int(60, 'Extra wait after a stated usage-limit reset time', { max: DAY_SECONDS }),
  USAGE_LIMIT_PROMPT_SECONDS: int(30, 'Seconds to answer the wait-or-stop prompt at a usage limit', { max: DAY_SECONDS }),
  MAX_CONSECUTIVE_TEST_LOOPS: int(3, 'Test-only loops in a row that count as done', { max: COUNT_MAX }),
  MAX_CONSECUTIVE_DONE_SIGNALS: int(2, 'Done signals in a row that count as done', { max: COUNT_MAX }),
  // 8: an honest agent may need several loops for one item (explore, write, fix the tests, tick
  // it), and the breaker already stops loops with no new content after 3; eight loops of new
  // content with no item done and no failing test fixed is work that goes nowhere.
  WORK_DIRS: list(
    [],
    "Folders outside the project the agent also works in, comma-separated, relative to the project or absolute (a monorepo's ../../libs/shared): their changes count as progress",
  ),
  CB_NO_PLAN_PROGRESS_THRESHOLD: int(8, 'Halt (stalled) after this many loops in a row that completed no plan item and fixed no failing test (0 = off)', {
    max: COUNT_MAX,
  }),
  CB_SAME_FAILURES_THRESHOLD: int(3, 'Open the circuit breaker after the same test failures this many loops in a row', { max: COUNT_MAX }),
  TEST_COMMAND: str('', 'Command that runs the project tests (verification gate; empty: detected from the project manifests)'),
  QUALITY_GATES: str('', 'Extra commands that must pass before finishing, comma-separated (commas inside quotes stay)'),
  VERIFY_BEFORE_EXIT: bool(true, 'Run the verification gate before finishing'),
  VERIFY_TIMEOUT_MINUTES: int(10, 'Time limit for the verification gate, in minutes', { min: 1, max: DAY_MINUTES }),
  TRANSCRIPT_MAX_BYTES: int(
    32 * 1024 * 1024,
    "Bytes kept of one agent call's stdout and of its stderr in the logs (the first and last half; the analysis reads everything)",
    {
      min: 64 * 1024,
      max: 10 * 1024 * 1024 * 1024,
    },
  ),
  LOG_RETENTION: int(200, 'Keep the newest N agent output logs', { max: 100_000 }),
  LOG_RETENTION_BYTES: int(
    1024 * 1024 * 1024,
    "Keep no more than this many bytes of agent output logs in all, the oldest going first; the last call's logs always stay (0 = no byte limit)",
    {
      max: 1024 * 1024 * 1024 * 1024,
    },
  ),
  BACKUP_KEEP: int(20, 'Keep the newest N of the backups ralph made (recorded in its ledger; a backup ref it did not record is never pruned)', { max: 10_000 }),
  DRY_RUN: bool(false, 'Simulate loops without calling the agent'),
  LIVE_OUTPUT: bool(false, 'Stream the agent output live'),
} satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof SPECS;
export type RalphConfig = { [K in ConfigKey]: ValueOfType[(typeof SPECS)[K]['type']] };
export type ConfigValue = RalphConfig[ConfigKey];

export const CONFIG_SCHEMA: Readonly<Record<ConfigKey, KeySpec>> = SPECS;
export const CONFIG_KEYS = Object.keys(SPECS) as ConfigKey[];

const NAME_TO_KEY = new Map<string, ConfigKey>();
for (const key of CONFIG_KEYS) {
  NAME_TO_KEY.set(key, key);
  for (const alias of CONFIG_SCHEMA[key].aliases ?? []) NAME_TO_KEY.set(alias, key);
}

export function defaultConfig(): RalphConfig {
  const config = {} as Record<ConfigKey, ConfigValue>;
  for (const key of CONFIG_KEYS) {
    const d = CONFIG_SCHEMA[key].default;
    config[key] = Array.isArray(d) ? [...d] : d;
  }
  return config as RalphConfig;
}

/** Env variables that set a key: the key itself, then its aliases (first non-empty wins). */
export function envNamesFor(key: ConfigKey): string[] {
  return [key, ...(CONFIG_SCHEMA[key].aliases ?? [])];
}

/** The canonical key for a name written in .ralphrc or env (`CLAUDE_USE_CONTINUE` → `SESSION_CONTINUITY`). */
export function resolveConfigKey(name: string): ConfigKey | undefined {
  return NAME_TO_KEY.get(name);
}

/** A known name within two edits of `name`, for "did you mean" hints. */
export function suggestConfigKey(name: string): string | undefined {
  return findClosestName(name.toUpperCase(), NAME_TO_KEY.keys());
}

/** ALLOWED_TOOLS items: comma-separated, commas inside `Bash(…)` kept (one splitter for all). */
export { splitAllowedTools } from '../analysis/allowed-tools-suggestion.js';

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export type CoerceResult = { ok: true; value: ConfigValue } | { ok: false; message: string };

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);

/** Turns the text of a .ralphrc/env/flag value into the key's type, checking its validation. */
export function coerceConfigValue(key: ConfigKey, raw: string): CoerceResult {
  const spec = CONFIG_SCHEMA[key];
  const got = `got ${JSON.stringify(raw)}`;
  switch (spec.type) {
    case 'bool': {
      const word = raw.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return { ok: true, value: true };
      if (FALSE_WORDS.has(word)) return { ok: true, value: false };
      return { ok: false, message: `expected true or false, ${got}` };
    }
    case 'int':
    case 'number':
      return checkNumberText(raw, spec.type, spec);
    case 'list':
      return { ok: true, value: splitList(raw) };
    case 'string': {
      if (!spec.choices || spec.choices.includes(raw)) return { ok: true, value: raw };
      const named = spec.choices.filter((c) => c !== '').join(', ');
      const orEmpty = spec.choices.includes('') ? ' (or empty)' : '';
      return { ok: false, message: `expected one of ${named}${orEmpty}, ${got}` };
    }
  }
}
