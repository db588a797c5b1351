// Every `ralph` flag in one table: its spelling, short alias, the value it takes, what it does
// and its help section. The parser (ralph-options.ts) and `ralph --help` are both built from it,
// so the help shows each value as the user types it (`--calls NUM`), not yargs' own types.
// Defaults, bounds and choices in the help come from the config schema, never typed here.

import { CONFIG_SCHEMA, type ConfigKey } from '../config/schema.js';

/** A key's default as the help shows it: the schema's value (a switch: on or off). */
function defaultOf(key: ConfigKey): string {
  const value = CONFIG_SCHEMA[key].default;
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** A key's bounds as `1-120`. */
function rangeOf(key: ConfigKey): string {
  const { min, max } = CONFIG_SCHEMA[key];
  return `${min}-${max}`;
}

/** A key's choices as `a, b or c`. */
function choicesOf(key: ConfigKey): string {
  const choices = CONFIG_SCHEMA[key].choices ?? [];
  return choices.length < 2 ? choices.join('') : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
}

export const RALPH_FLAG_SECTIONS = ['Options', 'Modern CLI Options', 'GitHub issue lifecycle', 'Beyond the Bash version'] as const;
export type RalphFlagSection = (typeof RALPH_FLAG_SECTIONS)[number];

export interface RalphFlag {
  name: string;
  alias?: string;
  /** Placeholder of the value the flag takes; none for a switch. */
  arg?: string;
  /** May be given more than once; every value is kept. */
  repeatable?: boolean;
  describe: string;
  section: RalphFlagSection;
}

export const RALPH_FLAGS: readonly RalphFlag[] = [
  { name: 'help', alias: 'h', describe: 'Show this help message', section: 'Options' },
  { name: 'version', describe: 'Show the ralph version', section: 'Options' },
  { name: 'calls', alias: 'c', arg: 'NUM', describe: `Max calls per hour (default: ${defaultOf('MAX_CALLS_PER_HOUR')})`, section: 'Options' },
  { name: 'prompt', alias: 'p', arg: 'FILE', describe: `Prompt file (default: ${defaultOf('PROMPT_FILE')})`, section: 'Options' },
  { name: 'status', alias: 's', describe: 'Show current status and exit', section: 'Options' },
  { name: 'monitor', alias: 'm', describe: 'Start with tmux session and live monitor', section: 'Options' },
  { name: 'verbose', alias: 'v', describe: 'Show detailed progress updates during execution', section: 'Options' },
  { name: 'live', alias: 'l', describe: "Show Claude Code's output in real time", section: 'Options' },
  { name: 'timeout', alias: 't', arg: 'MIN', describe: `Claude Code execution timeout in minutes, ${rangeOf('CLAUDE_TIMEOUT_MINUTES')} (default: ${defaultOf('CLAUDE_TIMEOUT_MINUTES')})`, section: 'Options' },
  { name: 'reset-circuit', describe: 'Reset the circuit breaker to CLOSED and exit', section: 'Options' },
  { name: 'circuit-status', describe: 'Show circuit breaker status and exit', section: 'Options' },
  { name: 'auto-reset-circuit', describe: 'Reset an OPEN circuit breaker at startup instead of waiting for the cooldown', section: 'Options' },
  { name: 'reset-session', describe: 'Reset the session state and exit', section: 'Options' },
  { name: 'dry-run', describe: 'Show what would run, without calling Claude', section: 'Options' },
  { name: 'notify', alias: 'n', describe: 'Desktop notifications for completion, halts and limits', section: 'Options' },
  { name: 'backup', alias: 'b', describe: 'Back up the working tree to a git ref before each loop', section: 'Options' },
  { name: 'rollback', arg: '[NAME]', describe: 'List backups, or restore the named one', section: 'Options' },
  { name: 'sandbox', arg: 'PROVIDER', describe: 'Run the agent in a sandbox: docker or bwrap (never falls back to the host)', section: 'Options' },
  { name: 'sandbox-build', describe: "Build the Docker sandbox image (SANDBOX_DOCKER_IMAGE) from the Dockerfile that ships with ralph, then exit", section: 'Options' },
  { name: 'sandbox-image', arg: 'IMAGE', describe: `With --sandbox docker: the image (default: ${defaultOf('SANDBOX_DOCKER_IMAGE')})`, section: 'Options' },
  { name: 'sandbox-memory', arg: 'SIZE', describe: `With --sandbox docker: memory limit, e.g. 512m (default: ${defaultOf('SANDBOX_DOCKER_MEMORY')})`, section: 'Options' },
  { name: 'sandbox-cpus', arg: 'NUM', describe: `With --sandbox docker: CPU limit, e.g. 1.5 (default: ${defaultOf('SANDBOX_DOCKER_CPUS')})`, section: 'Options' },
  { name: 'sandbox-network', arg: 'MODE', describe: `With --sandbox: none, bridge or host (default: ${defaultOf('SANDBOX_DOCKER_NETWORK')}; bwrap shares the host network unless none)`, section: 'Options' },
  { name: 'show-tool-args', describe: "With --live: show each tool call's main argument", section: 'Options' },
  { name: 'queue-status', describe: 'Show the issue queue and exit (see ralph-queue --help)', section: 'Options' },
  { name: 'process-queue', describe: 'Process the pending queued issues one by one (with --parallel NUM: NUM at a time, in worktrees), then exit', section: 'Options' },
  { name: 'resume-queue', describe: 'Resume processing the remaining pending issues', section: 'Options' },
  { name: 'halt-on-failure', describe: 'With --process-queue, --resume-queue or --parallel: stop at the first failed issue or unit', section: 'Options' },
  { name: 'queue-next', describe: 'Print the id of the next ready queued issue and exit', section: 'Options' },
  { name: 'queue-clear', describe: 'Remove all items from the queue and exit', section: 'Options' },
  { name: 'queue-remove', arg: 'ID', describe: 'Remove one item from the queue by id or issue number and exit', section: 'Options' },
  { name: 'output-format', arg: 'FMT', describe: `Claude output format: ${choicesOf('CLAUDE_OUTPUT_FORMAT')} (default: ${defaultOf('CLAUDE_OUTPUT_FORMAT')})`, section: 'Modern CLI Options' },
  { name: 'allowed-tools', arg: 'LIST', describe: 'Comma-separated tools Claude may use without asking', section: 'Modern CLI Options' },
  { name: 'continue', describe: `Resume the Claude session between loops (default: ${defaultOf('SESSION_CONTINUITY')}; --no-continue turns it off)`, section: 'Modern CLI Options' },
  { name: 'session-expiry', arg: 'HOURS', describe: `Hours before a Claude session is started fresh (default: ${defaultOf('SESSION_EXPIRY_HOURS')})`, section: 'Modern CLI Options' },
  { name: 'github-issue', arg: 'REF', describe: 'Work on this GitHub issue (N, #N, owner/repo#N or an issue URL); the flags below act on it through gh', section: 'GitHub issue lifecycle' },
  { name: 'comment-progress', describe: 'Post a progress comment on the issue every --comment-interval loops', section: 'GitHub issue lifecycle' },
  { name: 'comment-interval', arg: 'NUM', describe: `Loops between progress comments (default: ${defaultOf('COMMENT_INTERVAL')})`, section: 'GitHub issue lifecycle' },
  { name: 'close-summary', describe: 'On completion: post a summary comment on the issue', section: 'GitHub issue lifecycle' },
  { name: 'create-pr', describe: 'On completion: push the branch to origin and open a pull request', section: 'GitHub issue lifecycle' },
  { name: 'draft-pr', describe: 'Open the pull request as a draft', section: 'GitHub issue lifecycle' },
  { name: 'link-issue', describe: 'Put "Closes #N" in the pull request body', section: 'GitHub issue lifecycle' },
  { name: 'create-followups', describe: 'On completion: open a follow-up issue for TODO/FIXME/HACK/XXX lines added during the run', section: 'GitHub issue lifecycle' },
  { name: 'followup-label', arg: 'LABEL', describe: `Label of the follow-up issue (default: ${defaultOf('FOLLOWUP_LABEL')})`, section: 'GitHub issue lifecycle' },
  { name: 'add-label', arg: 'LABEL', describe: 'With --auto-close: add this label to the issue (repeatable)', section: 'GitHub issue lifecycle' },
  { name: 'auto-close', describe: 'On completion: close the issue', section: 'GitHub issue lifecycle' },
  { name: 'agent', arg: 'NAME', describe: `Agent CLI to run: ${choicesOf('AGENT_PROVIDER')} (default: ${defaultOf('AGENT_PROVIDER')})`, section: 'Beyond the Bash version' },
  { name: 'fallback-agent', arg: 'NAME', repeatable: true, describe: 'Agent to run on while the one before it is at its usage limit (repeatable; FALLBACK_AGENTS)', section: 'Beyond the Bash version' },
  { name: 'parallel', arg: 'NUM', describe: `Work on NUM plan items (with --process-queue: queue items) at once (2-16), each in its own git worktree and branch, merged back one at a time; with --monitor, a tmux window per unit (unit-1, unit-2, ...) shows its live output (default: ${defaultOf('PARALLEL')})`, section: 'Beyond the Bash version' },
  { name: 'max-loops', arg: 'NUM', describe: `Stop after NUM loops, exit 3 (default: ${defaultOf('MAX_LOOPS')} = unlimited)`, section: 'Beyond the Bash version' },
  { name: 'max-cost', arg: 'USD', describe: `Stop when this run has spent USD dollars, exit 3 (default: ${defaultOf('MAX_COST_USD')} = unlimited)`, section: 'Beyond the Bash version' },
  { name: 'max-run-minutes', arg: 'MIN', describe: `Stop after MIN minutes, exit 3 (default: ${defaultOf('MAX_RUN_MINUTES')} = unlimited)`, section: 'Beyond the Bash version' },
  { name: 'delay', arg: 'SECS', describe: `Seconds to wait between loops (default: ${defaultOf('LOOP_DELAY_SECONDS')})`, section: 'Beyond the Bash version' },
  { name: 'fresh', describe: 'Start a new run instead of resuming an unfinished one', section: 'Beyond the Bash version' },
  { name: 'config', describe: 'Print every effective setting and where it came from', section: 'Beyond the Bash version' },
  { name: 'doctor', describe: 'Check that this machine and project are ready to run (Node, Claude CLI and login, git, tmux, .ralph/ files, .gitignore, test command, the sandbox asked for); exit 1 if not', section: 'Beyond the Bash version' },
  { name: 'json', describe: 'With --status, --config or --rollback: print JSON', section: 'Beyond the Bash version' },
  { name: 'jq', arg: 'FILTER', describe: 'Filter the JSON output with a jq expression, e.g. --jq .status (built in; no jq needed)', section: 'Beyond the Bash version' },
  { name: 'keep-monitor', describe: 'With --monitor: keep the tmux session after the loop ends', section: 'Beyond the Bash version' },
  { name: 'force', describe: 'With --rollback: restore even with uncommitted changes', section: 'Beyond the Bash version' },
  { name: 'debug', describe: 'Print stack traces for internal errors', section: 'Beyond the Bash version' },
];

const WIDTH = 80;

const HEADER = `Ralph Loop for Claude Code

Runs a coding agent on this project again and again, following .ralph/PROMPT.md
and the .ralph/fix_plan.md checklist, until the plan is done (or a guard stops
it).

Usage: ralph [OPTIONS]

IMPORTANT: This command must be run from a Ralph project directory (one with
.ralph/PROMPT.md; create it with ralph-enable, ralph-setup or ralph-import).`;

const FOOTER = `Files:
  .ralph/PROMPT.md     instructions for Claude
  .ralph/fix_plan.md   the task checklist
  .ralph/AGENT.md      how to build, test and run the project
  .ralph/status.json   the loop's state
  .ralph/logs/         ralph.log, claude_output_*.log, metrics.jsonl

Exit codes: 0 done, 1 could not run, 2 halted by a guard, 3 stopped at a limit,
129/130/131/143 interrupted (SIGHUP/SIGINT/SIGQUIT/SIGTERM).

Examples:
  ralph --doctor
  ralph --monitor
  ralph --calls 50 --max-loops 10 --live
  ralph --github-issue 42 --close-summary --create-pr --link-issue --auto-close
  ralph --status --json --jq .status`;

/** `ralph --help`: the header, one section per flag group, then files, exit codes, examples. */
export function renderRalphHelp(): string {
  const label = (flag: RalphFlag) => `${flag.alias ? `-${flag.alias}, ` : '    '}--${flag.name}${flag.arg ? ` ${flag.arg}` : ''}`;
  const column = Math.max(...RALPH_FLAGS.map((flag) => label(flag).length)) + 4;
  const sections: string[] = [];
  for (const section of RALPH_FLAG_SECTIONS) {
    const lines = [`${section}:`];
    for (const flag of RALPH_FLAGS.filter((f) => f.section === section)) {
      const [first = '', ...rest] = wrapWords(flag.describe, WIDTH - column);
      lines.push(`  ${label(flag).padEnd(column - 2)}${first}`, ...rest.map((line) => `${' '.repeat(column)}${line}`));
    }
    sections.push(lines.join('\n'));
  }
  return [HEADER, ...sections, FOOTER].join('\n\n');
}

function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}
