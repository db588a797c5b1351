// ALLOWED_TOOLS as OpenCode's `permission` config, handed over in OPENCODE_CONFIG_CONTENT (the
// CLI merges it over its other config files). Claude's names map onto OpenCode's permissions:
// Write/Edit/MultiEdit/NotebookEdit → edit, Bash / Bash(pattern) → bash (patterns kept, the
// rest denied), WebFetch → webfetch, WebSearch → websearch, Task → task. Read-only tools keep
// OpenCode's defaults. "deny", never "ask": `opencode run` auto-rejects an ask and ends the turn
// (the `perm_ask` recording), while a denied tool is not offered at all (`perm_deny`). Pure.

export type PermissionValue = 'allow' | 'deny' | Record<string, 'allow' | 'deny'>;

const EDIT_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
const SIMPLE: Record<string, string> = { WebFetch: 'webfetch', WebSearch: 'websearch', Task: 'task' };
/** Claude tools OpenCode allows anyway (reading the project) or has no permission for. */
const UNMAPPED_OK = new Set(['Read', 'Glob', 'Grep', 'LS', 'TodoWrite', 'TodoRead']);

export interface OpenCodePermissions {
  permission: Record<string, PermissionValue>;
  /** ALLOWED_TOOLS entries that have no OpenCode permission. */
  unmapped: string[];
}

/** null when ALLOWED_TOOLS is empty: OpenCode's own configuration decides, as Claude's does without --allowedTools. */
export function openCodePermissions(allowedTools: readonly string[]): OpenCodePermissions | null {
  const tools = allowedTools.map((t) => t.trim()).filter((t) => t !== '');
  if (tools.length === 0) return null;
  let edit = false;
  let bashAll = false;
  const bashPatterns: string[] = [];
  const simple = new Set<string>();
  const unmapped: string[] = [];
  for (const tool of tools) {
    const bash = /^Bash(?:\((.*)\))?$/.exec(tool);
    if (bash) {
      const pattern = bash[1]?.trim();
      if (pattern === undefined || pattern === '' || pattern === '*') bashAll = true;
      // Claude's `git add:*` prefix form is OpenCode's `git add *`.
      else bashPatterns.push(pattern.replace(/:\*$/, ' *'));
    } else if (EDIT_TOOLS.has(tool)) edit = true;
    else if (SIMPLE[tool]) simple.add(SIMPLE[tool]);
    else if (!UNMAPPED_OK.has(tool)) unmapped.push(tool);
  }
  const permission: Record<string, PermissionValue> = {
    edit: edit ? 'allow' : 'deny',
    // "*" first: the more specific patterns after it decide (last match wins).
    bash: bashAll ? 'allow' : bashPatterns.length === 0 ? 'deny' : Object.fromEntries([['*', 'deny'], ...bashPatterns.map((p) => [p, 'allow'])]),
  };
  for (const key of Object.values(SIMPLE)) permission[key] = simple.has(key) ? 'allow' : 'deny';
  return { permission, unmapped };
}

/**
 * The OPENCODE_CONFIG_CONTENT to run with: the user's own (if any) with ralph's permission
 * keys laid over its `permission`. The user's other settings are kept. A value that is not a
 * JSON object is passed on untouched (OpenCode reports it; ralph never drops it silently).
 */
export function mergeOpenCodeConfig(userContent: string | undefined, permission: Record<string, PermissionValue>): string {
  if (userContent === undefined || userContent.trim() === '') return JSON.stringify({ permission });
  let user: unknown;
  try {
    user = JSON.parse(userContent);
  } catch {
    return userContent;
  }
  if (typeof user !== 'object' || user === null || Array.isArray(user)) return userContent;
  const config = user as Record<string, unknown>;
  const theirs = config.permission;
  // A single string ("allow") is every tool's default: kept as "*", ralph's keys over it.
  const base = typeof theirs === 'string' ? { '*': theirs } : typeof theirs === 'object' && theirs !== null && !Array.isArray(theirs) ? theirs : {};
  return JSON.stringify({ ...config, permission: { ...base, ...permission } });
}
