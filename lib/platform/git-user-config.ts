// What ralph's git reads outside the repository: the user's global and system configuration as
// they were when ralph first ran git, and none of git's location variables inherited from the
// environment. An agent that can write `~/.gitconfig` or `~/.config/git/config` (one run with
// no sandbox can) could otherwise send ralph's push elsewhere (`url.<x>.insteadOf`, a proxy),
// change the identity of ralph's commits, hide files from them (`core.excludesFile`) or add
// settings that run programs. So the first git call of the process takes a snapshot, with
// includes (conditional ones as they apply to that repository) read into it: the global and
// system entries are written to two files in a private folder (0700, in the temp dir, removed
// at exit; those of a ralph killed with -9 by the next one), and every git command gets
// GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM pointing at them. The global ignore and attributes
// files are copied beside them the same way. Each call first checks the copies and writes back
// any that changed. The settings that name a program are kept as they were (the gateway pins
// them to those values anyway: git-config-pins.ts), so the user's credential helper and
// git-lfs still work.

import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import { isProcessAlive } from '../state/process-alive.js';

/**
 * Variables of git's own that say where the repository, its objects or git's programs are, or
 * add settings: never taken from ralph's environment (ralph run from a hook or from another
 * git command inherits some). The gateway sets the repository's own (GIT_DIR, …) itself.
 */
const DROPPED_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_QUARANTINE_PATH',
  'GIT_NAMESPACE',
  'GIT_REPLACE_REF_BASE',
  'GIT_GRAFT_FILE',
  'GIT_SHALLOW_FILE',
  'GIT_PREFIX',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_COUNT',
];
const DROPPED_PREFIXES = ['GIT_CONFIG_KEY_', 'GIT_CONFIG_VALUE_'];

/** The copies of one user's configuration, and the bytes each must hold. */
interface Snapshot {
  dir: string;
  files: Map<string, Buffer>;
  global: string;
  system: string;
}

const snapshots = new Map<string, Snapshot>();
let exitHook = false;

/** `git config -z --list --show-scope --includes` as git prints it with `env` (the gateway runs it). */
export type ListUserConfig = (env: NodeJS.ProcessEnv) => string;

/**
 * `env` as ralph's git gets it: git's location variables left out, and the global and system
 * configuration pointed at the snapshot (taken now, through `list`, when this user's has none yet).
 */
export function userConfigEnv(env: NodeJS.ProcessEnv, list: ListUserConfig): NodeJS.ProcessEnv {
  const clean = withoutGitLocations(env);
  const own = [...snapshots.values()].find((s) => s.global === env.GIT_CONFIG_GLOBAL);
  const key = own ? undefined : sourcesKey(env);
  const known = own ?? snapshots.get(key!);
  // A snapshot just taken holds what it was written with.
  if (known) keepSnapshot(known);
  const snapshot = known ?? takeSnapshot(key!, clean, list(clean));
  return { ...clean, GIT_CONFIG_GLOBAL: snapshot.global, GIT_CONFIG_SYSTEM: snapshot.system };
}

/** Forgets every snapshot and removes its folder (a new run in the same process, and tests). */
export function forgetUserConfigSnapshots(): void {
  for (const snapshot of snapshots.values()) rmSync(snapshot.dir, { recursive: true, force: true });
  snapshots.clear();
}

/** The environment without git's location variables (see DROPPED_ENV). */
export function withoutGitLocations(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (DROPPED_ENV.includes(name) || DROPPED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    out[name] = value;
  }
  return out;
}

// Where git would find the user's configuration: one snapshot per different answer.
function sourcesKey(env: NodeJS.ProcessEnv): string {
  return ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM', 'HOME', 'XDG_CONFIG_HOME'].map((name) => `${name}=${env[name] ?? ''}`).join('\0');
}

function takeSnapshot(key: string, env: NodeJS.ProcessEnv, listing: string): Snapshot {
  removeDeadSnapshots();
  const entries = parseScopedListing(listing);
  const dir = mkdtempSync(join(tmpdir(), `ralph-git-${process.pid}-`));
  const global = entries.filter((e) => e.scope === 'global' && !isIncludeKey(e.key));
  const system = entries.filter((e) => e.scope === 'system' && !isIncludeKey(e.key));
  const files = new Map<string, Buffer>();
  // The global ignore and attributes files, as they are now (an empty file when there is none).
  for (const [setting, name] of [
    ['core.excludesfile', 'ignore'],
    ['core.attributesfile', 'attributes'],
  ] as const) {
    const copy = join(dir, name);
    files.set(copy, readOrEmpty(userFile(entries, setting, name, env)));
    global.push({ scope: 'global', key: setting, value: copy });
  }
  const snapshot: Snapshot = { dir, files, global: join(dir, 'global'), system: join(dir, 'system') };
  files.set(snapshot.global, Buffer.from(configText(global)));
  files.set(snapshot.system, Buffer.from(configText(system)));
  // The folder is new and this process's alone (mkdtemp, 0700) and no git runs yet: each copy is
  // created in place (exclusively: nothing there is followed), not through a temp file and a rename.
  for (const [path, bytes] of files) writeFileSync(path, bytes, { flag: 'wx', mode: 0o600 });
  snapshots.set(key, snapshot);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', forgetUserConfigSnapshots);
  }
  return snapshot;
}

/** Writes back each copy whose bytes are not the snapshot's (or that is gone). */
function keepSnapshot(snapshot: Snapshot): void {
  for (const [path, bytes] of snapshot.files) {
    let now: Buffer | undefined;
    try {
      now = lstatSync(path).isFile() ? readFileSync(path) : undefined;
    } catch {
      now = undefined;
    }
    if (now?.equals(bytes)) continue;
    mkdirSync(snapshot.dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(path, bytes, { mode: 0o600 });
  }
}

/** The file a setting names in the user's configuration (the last value), else git's default under XDG_CONFIG_HOME. */
function userFile(entries: ScopedEntry[], setting: string, name: string, env: NodeJS.ProcessEnv): string | undefined {
  const home = env.HOME;
  const named = entries.filter((e) => e.key === setting && (e.scope === 'global' || e.scope === 'system')).at(-1)?.value;
  if (named !== undefined && named !== null) return named.startsWith('~/') && home ? join(home, named.slice(2)) : named;
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'git', name);
  return home ? join(home, '.config', 'git', name) : undefined;
}

function readOrEmpty(path: string | undefined): Buffer {
  try {
    return path !== undefined && isAbsolute(path) ? readFileSync(path) : Buffer.alloc(0);
  } catch {
    return Buffer.alloc(0);
  }
}

// Snapshots of a ralph that no longer runs (killed with -9): `ralph-git-<pid>-…` of this user.
function removeDeadSnapshots(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^ralph-git-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue;
    try {
      const stats = lstatSync(join(tmpdir(), name));
      if (stats.isDirectory() && stats.uid === process.getuid?.()) rmSync(join(tmpdir(), name), { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
  }
}

export interface ScopedEntry {
  scope: string;
  key: string;
  /** null: the key stands alone (a boolean true). */
  value: string | null;
}

/** `git config -z --list --show-scope` output → its entries, in order. */
export function parseScopedListing(listing: string): ScopedEntry[] {
  const parts = listing.split('\0');
  const entries: ScopedEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const entry = parts[i + 1]!;
    const newline = entry.indexOf('\n');
    entries.push({ scope: parts[i]!, key: newline === -1 ? entry : entry.slice(0, newline), value: newline === -1 ? null : entry.slice(newline + 1) });
  }
  return entries;
}

/** Entries as a git config file: `[section "subsection"]` and `name = "value"`, every value quoted. */
export function configText(entries: readonly ScopedEntry[]): string {
  const lines: string[] = [];
  for (const { key, value } of entries) {
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    if (first === -1) continue;
    const section = key.slice(0, first);
    const name = key.slice(last + 1);
    const header = first === last ? `[${section}]` : `[${section} "${escapeText(key.slice(first + 1, last))}"]`;
    lines.push(header, value === null ? `\t${name}` : `\t${name} = "${escapeText(value).replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

function isIncludeKey(key: string): boolean {
  return key === 'include.path' || /^includeif\..+\.path$/.test(key);
}
