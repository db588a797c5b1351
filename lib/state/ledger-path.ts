// Where ralph's ledger of a project lives (lib/state/ledger.ts): apart from the ledger's schema,
// so a view can ask whether there is one without loading zod or node:crypto (start-up budgets, docs/performance.md).

import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { sha256Hex } from '../platform/sha256.js';

export const LEDGER_FILE = 'ledger.json';
/** The plan's memory, beside the ledger (its own file: the ledger is written every call, the plan's memory only when it changes). */
export const PLAN_MEMORY_FILE = 'plan-memory.json';
/**
 * The content ids seen in the run, beside the ledger (its own file: up to hundreds of ids, which
 * every write of the ledger, several a loop, would otherwise carry).
 */
export const CONTENT_MEMORY_FILE = 'content-memory.json';

/** `$XDG_STATE_HOME/ralph`, or `~/.local/state/ralph` when it is unset or not absolute (XDG spec). */
export function ledgerRoot(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  const xdg = env.XDG_STATE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homeDir, '.local', 'state'), 'ralph');
}

/** The ledger file of a project: a readable slug of its folder name and a hash of its real path. */
export function ledgerPath(projectDir: string, env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  const real = realPathOf(projectDir);
  const slug =
    basename(real)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+/, '')
      .slice(0, 40) || 'project';
  return join(ledgerRoot(env, homeDir), `${slug}-${sha256Hex(real, 12)}`, LEDGER_FILE);
}

/** The plan's memory of the project whose ledger is `ledgerFile`. */
export function planMemoryPath(ledgerFile: string): string {
  return join(dirname(ledgerFile), PLAN_MEMORY_FILE);
}

/** The content ids seen in the run of the project whose ledger is `ledgerFile`. */
export function contentMemoryPath(ledgerFile: string): string {
  return join(dirname(ledgerFile), CONTENT_MEMORY_FILE);
}

/** The real path of a folder, or its absolute path when it does not exist (yet). */
export function realPathOf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}
