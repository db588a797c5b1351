// Permission denials → what to do about them. `permission_denials[]` on the result is the
// authoritative list (claude-cli contract rule 9). This file decides which denials are real
// (halt) and which are the CLI's compound-command limitation (Bash issue #243: `npm test 2>&1 |
// tail -5` is denied even though `Bash(npm *)` is allowed), and builds the exact
// `ALLOWED_TOOLS="…"` line for .ralphrc that would have allowed the real ones: the narrowest
// rule for each (`Bash(rm -rf build)`, not `Bash(rm *)`, which a newcomer would paste as it is),
// with the wider rule named so the message can say what it would also allow.

export interface ToolDenial {
  tool_name: string;
  tool_input?: Record<string, unknown> | null;
}

export interface DenialClassification {
  /** Denials the user must act on: halt and print the suggestion. */
  actionable: ToolDenial[];
  /** Compound Bash commands whose first command is already allowed: advisory only. */
  compoundExempt: ToolDenial[];
}

export interface AllowedToolsSuggestion {
  /** e.g. `ALLOWED_TOOLS="Write,Read,Bash(rm -rf build)"`, ready to paste into .ralphrc. */
  line: string;
  /** The full list: current items first, then the added ones. */
  items: string[];
  added: string[];
  /** For an added exact Bash rule, the wider one it stands for and what that would also allow. */
  wider: WiderRule[];
}

export interface WiderRule {
  /** The rule suggested, e.g. `Bash(rm -rf build)`. */
  rule: string;
  /** e.g. `Bash(rm *)`. */
  wider: string;
  /** The command word(s) the wider rule opens to any arguments, e.g. `rm`, `git clean`. */
  command: string;
}

/**
 * Tools whose first word alone grants too much (`git` covers `git push --force`, `sudo`
 * covers everything): suggest the subcommand too, e.g. `git clean -fd` → `Bash(git clean *)`.
 */
const SUBCOMMAND_TOOLS = new Set([
  'git',
  'gh',
  'docker',
  'docker-compose',
  'kubectl',
  'helm',
  'terraform',
  'aws',
  'gcloud',
  'az',
  'systemctl',
  'brew',
  'apt',
  'apt-get',
  'npx',
  'bunx',
  'pnpx',
  'uvx',
  'pipx',
  'sudo',
]);

/** Split `ALLOWED_TOOLS` on commas outside parentheses, trimming items. */
export function splitAllowedTools(value: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      items.push(current.trim());
      current = '';
    } else current += ch;
  }
  items.push(current.trim());
  return items.filter((i) => i !== '');
}

/** Sort denials into real ones and #243 compound-command limitations. */
export function classifyPermissionDenials(denials: ToolDenial[], allowed: string[]): DenialClassification {
  const actionable: ToolDenial[] = [];
  const compoundExempt: ToolDenial[] = [];
  for (const denial of denials) {
    const command = deniedCommand(denial);
    if (denial.tool_name === 'Bash' && command !== null) {
      const parsed = parseShellCommand(command);
      const head = parsed.segments[0];
      if (parsed.compound && head !== undefined && isBashCommandAllowed(head, allowed)) {
        compoundExempt.push(denial);
        continue;
      }
    }
    actionable.push(denial);
  }
  return { actionable, compoundExempt };
}

/** The ALLOWED_TOOLS line that adds what the denials needed to the current list. */
export function suggestAllowedTools(currentAllowed: string[], denials: ToolDenial[]): AllowedToolsSuggestion {
  const items = [...currentAllowed];
  const added: string[] = [];
  const wider: WiderRule[] = [];
  const add = (item: string) => {
    if (items.includes(item)) return false;
    items.push(item);
    added.push(item);
    return true;
  };
  for (const denial of denials) {
    const command = deniedCommand(denial);
    if (denial.tool_name !== 'Bash' || command === null) {
      add(denial.tool_name);
      continue;
    }
    for (const segment of parseShellCommand(command).segments) {
      if (isBashCommandAllowed(segment, items)) continue;
      const rules = bashRulesFor(segment);
      if (!rules) continue;
      if (add(rules.rule) && rules.rule !== rules.wider) wider.push(rules);
    }
  }
  return { line: formatAllowedToolsLine(items), items, added, wider };
}

/** `ALLOWED_TOOLS="…"` with the value escaped for a double-quoted .ralphrc value. */
export function formatAllowedToolsLine(items: string[]): string {
  const value = items.join(',').replace(/[\\"$`]/g, (c) => `\\${c}`);
  return `ALLOWED_TOOLS="${value}"`;
}

/** The denied Bash command line (`tool_input.command`, Bash #143), or null. */
export function deniedCommand(denial: ToolDenial): string | null {
  const command = denial.tool_input?.['command'];
  return typeof command === 'string' && command.trim() !== '' ? command.trim() : null;
}

/** Whether an allow rule covers one simple command, with Claude Code's rule syntax. */
export function isBashCommandAllowed(command: string, allowed: string[]): boolean {
  return allowed.some((rule) => bashRuleMatches(rule.trim(), command));
}

function bashRuleMatches(rule: string, command: string): boolean {
  if (rule === '*' || rule === 'Bash' || rule === 'Bash(*)') return true;
  const m = /^Bash\((.*)\)$/s.exec(rule);
  if (!m?.[1]) return false;
  const pattern = m[1].trim();
  // Legacy prefix form `Bash(npm run test:*)`: any command starting with the prefix.
  if (pattern.endsWith(':*')) return command.startsWith(pattern.slice(0, -2));
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
    // `Bash(npm *)` also covers a bare `npm`.
    .replace(/ \.\*$/, '(?: .*)?');
  return new RegExp(`^${source}$`, 's').test(command);
}

/**
 * The narrowest rule that allows one simple command — the command itself, `rm -rf build` →
 * `Bash(rm -rf build)` — and the wider one for its command word (`Bash(rm *)`; the subcommand
 * too for git-like tools, `Bash(git clean *)`). A command a rule cannot spell exactly (with a
 * parenthesis, or a `*`, which a rule reads as "anything") gets the wider rule only.
 */
function bashRulesFor(segment: string): WiderRule | undefined {
  const words = segment.split(/\s+/).filter((w) => w !== '');
  const head = words[0];
  if (head === undefined) return undefined;
  const second = words[1];
  const command = SUBCOMMAND_TOOLS.has(head) && second !== undefined && !second.startsWith('-') ? `${head} ${second}` : head;
  const wider = `Bash(${command} *)`;
  const exact = `Bash(${words.join(' ')})`;
  const spellable = !/[()*]/.test(segment) && bashRuleMatches(exact, segment);
  return { rule: spellable ? exact : wider, wider, command };
}

interface ParsedShellCommand {
  /** Simple commands, redirections and leading VAR=value assignments removed. */
  segments: string[];
  /** Pipes, lists, redirections or substitutions: what the CLI's matcher refuses (#243). */
  compound: boolean;
}

/** A small quote-aware split on `|`, `||`, `&&`, `;`, `&` and newlines. */
function parseShellCommand(command: string): ParsedShellCommand {
  const segments: string[] = [];
  let compound = false;
  let current = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i] as string;
    const next = command[i + 1];
    if (quote) {
      current += ch;
      if (ch === '\\' && quote === '"' && next !== undefined) current += command[++i];
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '\\' && next !== undefined) {
      current += ch + next;
      i++;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === '|' || ch === ';' || ch === '\n' || (ch === '&' && next !== '>' && !current.endsWith('>'))) {
      compound = true;
      if ((ch === '|' || ch === '&') && next === ch) i++;
      segments.push(current);
      current = '';
    } else {
      if (ch === '>' || ch === '<' || (ch === '$' && next === '(') || ch === '`') compound = true;
      current += ch;
    }
  }
  segments.push(current);
  return { segments: segments.map(simplifySegment).filter((s) => s !== ''), compound };
}

function simplifySegment(segment: string): string {
  return segment
    .replace(/\s*(?:\d*>>?|&>|<)\s*(?:&\d+|[^\s|;&<>]+)/g, '')
    .trim()
    .replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)+/, '')
    .trim();
}
