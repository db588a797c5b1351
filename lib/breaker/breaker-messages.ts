// Text of the guards' console messages, as plain lines (the caller colours and prints them):
// circuit-breaker banners on each transition, the `--circuit-status` box, the
// "EXECUTION HALTED" box of an OPEN breaker and the permission-denied halt. Wording follows
// the Bash tool's circuit breaker, plus what to do next.

import { formatClockTime } from '../limits/rate-window.js';
import { formatDuration } from '../limits/countdown.js';
import { isSameFailuresReason } from '../verify/verification.js';
import type { BreakerState, BreakerStateName } from './circuit-breaker.js';
import { deniedCommand, type AllowedToolsSuggestion, type ToolDenial } from '../analysis/allowed-tools-suggestion.js';

export interface HaltBoxOptions {
  /** The project's state dir as the user should type it; default `.ralph`. */
  ralphDir?: string;
  /** When the cooldown moves the breaker to HALF_OPEN (cooldownEndsAt()), if known. */
  cooldownEndsAt?: number | null;
  now?: number;
}

export const BREAKER_RESET_MESSAGE = '✅ Circuit breaker reset to CLOSED state';

const BOX_WIDTH = 60;

const ICONS: Record<BreakerStateName, string> = { CLOSED: '✅', HALF_OPEN: '⚠️ ', OPEN: '🚨' };

/** Two lines printed on every state change. */
export function formatBreakerBanner(transition: { to: BreakerStateName; reason: string }): string[] {
  const title =
    transition.to === 'OPEN'
      ? '🚨 CIRCUIT BREAKER OPENED'
      : transition.to === 'HALF_OPEN'
        ? '⚠️  CIRCUIT BREAKER: Monitoring Mode'
        : '✅ CIRCUIT BREAKER: Normal Operation';
  return [title, `Reason: ${transition.reason}`];
}

const STATUS_LABEL_WIDTH = 'Loops since progress: '.length;

/** `ralph --circuit-status`. */
export function formatCircuitStatus(state: BreakerState, options: HaltBoxOptions = {}): string[] {
  // Every value starts in one column (the Bash tool put State and Reason one further).
  const field = (label: string, value: string) => `${`${label}:`.padEnd(STATUS_LABEL_WIDTH)}${value}`;
  const lines = [
    ...drawBox('Circuit Breaker Status'),
    field('State', `${ICONS[state.state] ?? ''} ${state.state}`),
    field('Reason', state.reason),
    field('Loops since progress', String(state.consecutive_no_progress)),
    field('Last progress', state.last_progress_loop > 0 ? `Loop #${state.last_progress_loop}` : 'none yet'),
    field('Current loop', `#${Number.isFinite(state.current_loop) ? state.current_loop : 'N/A'}`),
    field('Total opens', String(state.total_opens)),
  ];
  const cooldown = cooldownLine(state, options);
  if (cooldown) lines.push(cooldown);
  lines.push('');
  return lines;
}

/** Printed when an OPEN breaker halts the run (exit 2): why it opened, and what to do. */
export function formatHaltBox(state: BreakerState, options: HaltBoxOptions = {}): string[] {
  const dir = options.ralphDir ?? '.ralph';
  const lines = [
    ...formatCircuitStatus(state, options),
    ...drawBox('EXECUTION HALTED: Circuit Breaker Opened'),
    '',
    ...haltExplanation(state, dir),
    '  4. Reset circuit breaker: ralph --reset-circuit',
  ];
  const ends = options.cooldownEndsAt;
  if (typeof ends === 'number') {
    lines.push(
      `  or wait: after ${formatClockTime(ends)} the next run starts in HALF_OPEN (CB_COOLDOWN_MINUTES),`,
      '     or let it reset itself on start with --auto-reset-circuit (CB_AUTO_RESET=true)',
    );
  }
  lines.push('');
  return lines;
}

// The same failing tests open the breaker while the agent still changes files (no "no
// progress"): the box must name the gate, not suggest the project may be complete.
function haltExplanation(state: BreakerState, dir: string): string[] {
  if (isSameFailuresReason(state.reason)) {
    const noResult = state.reason.startsWith('Verification could not complete');
    return [
      noResult
        ? 'The verification gate gave no result in consecutive loops (see why in the log above).'
        : 'The verification gate failed the same way in consecutive loops.',
      '',
      'Possible reasons:',
      '  • Claude does not find a fix for the failing tests (listed in the log above)',
      '  • TEST_COMMAND or QUALITY_GATES in .ralphrc may not work in this environment',
      `  • ${dir}/fix_plan.md or ${dir}/PROMPT.md may need to say how to fix them`,
      '',
      'To continue:',
      `  1. See what fails: grep -A20 'Verification gate' ${dir}/logs/ralph.log | tail -40`,
      '  2. Run the test command yourself, fix the cause or the command',
      `  3. Update ${dir}/fix_plan.md if needed`,
    ];
  }
  const permission = state.consecutive_permission_denials > 0 && /Permission denied/.test(state.reason);
  return [
    permission
      ? `Claude was denied permission to use a tool in ${state.consecutive_permission_denials} consecutive loop(s): the circuit breaker opened at CB_PERMISSION_DENIAL_THRESHOLD.`
      : 'Ralph has detected that no progress is being made.',
    '',
    'Possible reasons:',
    `  • Project may be complete (check ${dir}/fix_plan.md)`,
    '  • Claude may be stuck on an error',
    `  • ${dir}/PROMPT.md may need clarification`,
    '  • ALLOWED_TOOLS in .ralphrc may be missing a tool Claude needs',
    '',
    'To continue:',
    `  1. Review recent logs: tail -20 ${dir}/logs/ralph.log`,
    `  2. Check Claude output: ls -lt ${dir}/logs/claude_output_*.log | head -1`,
    `  3. Update ${dir}/fix_plan.md if needed`,
  ];
}

/** Printed when a loop's permission denials halt the run (exit 2). */
export function formatPermissionHalt(
  denials: ToolDenial[],
  suggestion: AllowedToolsSuggestion,
  from: AllowedToolsOrigin = { kind: 'default' },
  rule: PermissionHaltRule = {},
): string[] {
  const lines = [...drawBox('EXECUTION HALTED: Permission Denied'), '', 'Claude Code was denied:'];
  for (const denial of denials) {
    const command = deniedCommand(denial);
    lines.push(command === null ? `  • ${denial.tool_name}` : `  • ${denial.tool_name}: ${command}`);
  }
  lines.push('', ...permissionRuleLines(rule), '');
  if (suggestion.added.length > 0) {
    lines.push(
      `To allow ${suggestion.added.length === 1 ? 'it' : 'them'}, ${whereToSet(from)} (adds ${suggestion.added.join(', ')}):`,
      '',
      `  ${suggestion.line}`,
      '',
      'then run ralph again.',
    );
    for (const { rule: exact, wider, command } of suggestion.wider) {
      lines.push(`${exact} allows this exact command only; ${wider} would also allow ${command} with any other arguments.`);
    }
  } else {
    lines.push(
      'Every denied tool is already in ALLOWED_TOOLS; the denial came from Claude Code settings',
      '(.claude/settings.json deny rules) or a path outside the project. Current line:',
      '',
      `  ${suggestion.line}`,
    );
  }
  lines.push('');
  return lines;
}

/** Which rule stopped the run: the exit check, before the breaker's threshold was reached. */
export interface PermissionHaltRule {
  /** CB_PERMISSION_DENIAL_THRESHOLD, when known. */
  threshold?: number;
}

// A run halts at the first loop with a denial (the exit check, as the Bash tool does), so a
// user who set CB_PERMISSION_DENIAL_THRESHOLD=2 must not read the halt as the setting ignored.
function permissionRuleLines(rule: PermissionHaltRule): string[] {
  const threshold = rule.threshold === undefined ? '' : ` (${rule.threshold})`;
  return [
    'Stopped by the exit check: ralph halts after the first loop with a denied tool, as the Bash',
    `tool does. CB_PERMISSION_DENIAL_THRESHOLD${threshold} is the circuit breaker's count of such loops`,
    'in a row; this check comes first.',
  ];
}

/** Where the run's ALLOWED_TOOLS came from (the config loader's source of the key). */
export interface AllowedToolsOrigin {
  kind: 'flag' | 'env' | 'ralphrc' | 'home-ralphrc' | 'default';
  /** e.g. `.ralphrc:12`, `env ALLOWED_TOOLS`. */
  detail?: string;
}

// A higher layer overrides .ralphrc: the line must go where the value came from.
function whereToSet(from: AllowedToolsOrigin): string {
  switch (from.kind) {
    case 'flag':
      return 'pass this list to --allowed-tools, where ALLOWED_TOOLS came from (it overrides the environment and .ralphrc)';
    case 'env':
      return 'set this value in the environment variable ALLOWED_TOOLS, where it came from (it overrides .ralphrc)';
    case 'home-ralphrc':
      return `set this line in ~/.ralphrc (ALLOWED_TOOLS came from ${from.detail ?? '~/.ralphrc'}) or in the project's .ralphrc`;
    case 'ralphrc':
      return `set this line in .ralphrc (ALLOWED_TOOLS came from ${from.detail ?? '.ralphrc'})`;
    default:
      return 'set this line in .ralphrc (ALLOWED_TOOLS is the default now)';
  }
}

function cooldownLine(state: BreakerState, options: HaltBoxOptions): string | null {
  const ends = options.cooldownEndsAt;
  if (state.state !== 'OPEN' || typeof ends !== 'number') return null;
  const left = options.now === undefined ? '' : ` (in ${formatDuration(Math.max(0, ends - options.now))})`;
  return `Cooldown ends:        ${formatClockTime(ends)}${left}`;
}

function drawBox(title: string): string[] {
  const inner = BOX_WIDTH;
  const text = ` ${title}`.padEnd(inner).slice(0, inner);
  return [`╔${'═'.repeat(inner)}╗`, `║${text}║`, `╚${'═'.repeat(inner)}╝`];
}
