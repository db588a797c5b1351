// What the CLI's permission_denials[] means for the loop (#101, #143, #243):
// a readable list of what was denied, and the compound-command exemption: the CLI's matcher
// denies `npm test 2>&1 | tail -5` even when `Bash(npm *)` is allowed, which more allowed
// tools cannot fix, so it is reported as a limitation instead of halting the loop. Pure.

import type { PermissionDenial } from '../agents/agent-result.js';

export interface PermissionDenialSummary {
  /** Denials that should halt the loop (false when all are compound-command limitations). */
  hasPermissionDenials: boolean;
  count: number;
  /** `Bash(<first line of the command, ≤60 chars>)` for Bash, else the tool name. */
  deniedCommands: string[];
  hasCompoundCommandLimitation: boolean;
  compoundCommandCount: number;
}

export function summarizePermissionDenials(denials: PermissionDenial[], allowedTools: string[]): PermissionDenialSummary {
  const deniedCommands = denials.map(describeDenial);
  const count = denials.length;
  const allowed = allowedTools.map((tool) => tool.trim()).filter(Boolean);
  const compound =
    count > 0 && allowed.length > 0 && denials.every((denial) => denial.toolName === 'Bash' && isBaseCommandAllowed(bashCommand(denial), allowed));
  return {
    hasPermissionDenials: count > 0 && !compound,
    count,
    deniedCommands,
    hasCompoundCommandLimitation: compound,
    compoundCommandCount: compound ? count : 0,
  };
}

/** The command's first word: text before the first space, tab, `|`, `;`, `&`, `<` or `>`. */
export function baseCommand(command: string): string {
  return /^[^\s|;&<>]*/.exec(command.trimStart())?.[0] ?? '';
}

/**
 * Whether an allowed-tools entry lets the base command run: `*`, `Bash`, `Bash(*)`,
 * `Bash(<base>*…)`, `Bash(<base>:*)` or `Bash(<base> …*…)`. An exact entry such as
 * `Bash(npm install)` covers only itself, and `Bash(git *)` does not cover `gitlab`.
 */
export function isBaseCommandAllowed(command: string, allowedTools: string[]): boolean {
  const base = baseCommand(command);
  if (base === '') return false;
  return allowedTools.some((entry) => {
    if (entry === '*' || entry === 'Bash' || entry === 'Bash(*)') return true;
    const match = /^Bash\((.*)\)$/.exec(entry);
    const pattern = match?.[1]?.trim();
    if (!pattern || !pattern.includes('*')) return false;
    return pattern.startsWith(`${base}*`) || pattern.startsWith(`${base}:`) || pattern.startsWith(`${base} `);
  });
}

function describeDenial(denial: PermissionDenial): string {
  if (denial.toolName !== 'Bash') return denial.toolName || 'unknown';
  const firstLine = bashCommand(denial).split('\n', 1)[0] ?? '';
  return `Bash(${firstLine.slice(0, 60)})`;
}

function bashCommand(denial: PermissionDenial): string {
  const command = denial.input.command;
  return typeof command === 'string' ? command : '';
}
