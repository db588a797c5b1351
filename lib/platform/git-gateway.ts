// The git gateway: every git command ralph and ralph-fleet start goes through here (the process
// runner, lib/platform/process.ts, sends each one; no other file spawns git). Nothing the agent
// wrote can steer these calls:
//
// - the repository is fixed when ralph first looks at a folder (at run start for the project,
//   when ralph adds it for a worktree): its git dir, common dir and work tree are passed to every
//   later call (GIT_DIR, GIT_COMMON_DIR, GIT_WORK_TREE), so a `.git/commondir` or a gitfile the
//   agent writes is not followed; before each call they are checked, and a changed one stops the
//   run (GitRepositoryChanged) instead of being used;
// - the settings that run programs are pinned (lib/platform/git-config-pins.ts): no hook,
//   fsmonitor, filter, driver, textconv or external diff the run did not start with;
// - a nested repository is never entered: diffs and status ignore submodules, and `git add`
//   leaves every nested repository out (it is recorded by the loop's disarm step, not added);
// - a push goes to the URL the remote had when the run started, never to what a remote name
//   says now, and a push to a local path runs none of the receiving repository's hooks
//   (git-push-url.ts);
// - no replace ref, graft or commit-graph the agent planted makes a commit read as another
//   (git-config-pins.ts);
// - the user's global and system configuration are read from a snapshot taken at the first call,
//   and git's location variables are never inherited (git-user-config.ts);
// - a repository of another user (ralph run as root) is trusted only at the path the run was
//   started on (`safe.directory` for that path alone), and none of the program-naming settings
//   of its own config is used: that config is its owner's, not ralph's user's.

import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { EXIT, RalphError } from '../errors.js';
import { assertOwnWorkTree, assertUnchanged, locate, makeAnchor, type GitAnchor, type Look } from './git-anchor.js';
import {
  CONFIG_LIST_ARGS,
  gitOverrides,
  isMatchingKey,
  parseExecConfig,
  reachesRemotes,
  runsDrivers,
  withOverrides,
  withoutPlantedProxy,
  type ConfigValues,
  type Override,
} from './git-config-pins.js';
import { fetchFromRecordedUrl, pushToRecordedUrl, remoteNamesIn, remoteUrlsIn } from './git-push-url.js';
import { NESTED_OTHERS, NESTED_STAGE, parseNested } from './git-nested.js';
import { forgetUserConfigSnapshots, parseScopedListing, userConfigEnv, type ScopedEntry } from './git-user-config.js';
import type { RunOptions, StartOptions } from './process-types.js';
import { runProcessSync, startProcess } from './start-process.js';

/** What the run started with, per common dir (worktrees share it). */
interface Recorded {
  baseline: ConfigValues;
  /** Each remote's push URL. */
  remotes: Map<string, string>;
  /** Each remote's fetch URL. */
  fetchRemotes: Map<string, string>;
}

export { GitRepositoryChanged, type GitAnchor } from './git-anchor.js';

const anchors = new Map<string, GitAnchor>();
const recorded = new Map<string, Recorded>();
/**
 * The scoped listing the user's configuration was snapshotted from, by the folder it was asked
 * in (the first git call of a run, for the project): the settings and remotes of that folder's
 * repository are read from it, not asked of git again.
 */
const snapshotListings = new Map<string, string>();
/** The folders ralph was started on or made (a worktree): git may open them whoever owns them. */
const trusted = new Set<string>();

export function isGitCommand(cmd: string): boolean {
  return basename(cmd) === 'git';
}

/**
 * Fixes the repository of `cwd` and records its settings and remotes as they are now (run start).
 * Returns where it is: undefined outside a repository, no work tree when `cwd` is in none.
 * `onHead` hears the commit HEAD names (null: none yet) when the look that fixed it asked.
 */
export async function recordGitBaseline(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  onHead?: (head: string | null) => void,
): Promise<GitAnchor | undefined> {
  trust(resolve(cwd));
  return anchorFor(resolve(cwd), gitEnv(env, resolve(cwd)), onHead);
}

/** Forgets every anchored repository (a new run in the same process, and tests). */
export function resetGitBaselines(): void {
  anchors.clear();
  recorded.clear();
  snapshotListings.clear();
  trusted.clear();
  forgetUserConfigSnapshots();
}

/** The anchor of `cwd` (recorded on first use); undefined outside a repository. */
export function gitAnchorOf(cwd: string, env: NodeJS.ProcessEnv = process.env): GitAnchor | undefined {
  return anchorFor(resolve(cwd), gitEnv(env, resolve(cwd)));
}

export interface PreparedCall {
  args: string[];
  env: NodeJS.ProcessEnv;
  /** To run once the command exited (a worktree added is anchored at once). */
  after: (code: number | null) => void;
}

/** A git call as it is run: its arguments rewritten and its environment pinned. */
export async function prepareGitRun(args: readonly string[], options: RunOptions): Promise<PreparedCall> {
  const cwd = resolve(options.cwd ?? '.');
  const env = gitEnv(options.env ?? process.env, cwd);
  const anchor = anchorFor(cwd, env);
  const pinned = anchor ? pinnedEnv(anchor, env) : env;
  const sub = subcommandOf(args);
  const own = anchor ? recorded.get(anchor.commonDir) : undefined;
  const current = runsDrivers(sub?.name) && !options.gitReadsNoContent ? parseExecConfig((await runGit(cwd, [...CONFIG_LIST_ARGS], pinned)).stdout) : undefined;
  const nested = sub?.name === 'add' && anchor?.workTree ? await nestedRepositories(anchor.workTree, pinned) : [];
  return finish(
    { args, sub, anchor, own, cwd, callerEnv: env },
    withOverrides(pinned, gitOverrides(own?.baseline ?? new Map(), current, reachesRemotes(sub?.name))),
    nested,
  );
}

/** The same for a streaming git process (start() returns at once, so its look is synchronous). */
export function prepareGitStart(args: readonly string[], options: StartOptions): PreparedCall {
  const cwd = resolve(options.cwd ?? '.');
  const env = gitEnv(options.env ?? process.env, cwd);
  const anchor = anchorFor(cwd, env);
  const pinned = anchor ? pinnedEnv(anchor, env) : env;
  const sub = subcommandOf(args);
  const own = anchor ? recorded.get(anchor.commonDir) : undefined;
  const current = runsDrivers(sub?.name) ? parseExecConfig(runProcessSync('git', CONFIG_LIST_ARGS, { cwd, env: pinned }).stdout) : undefined;
  const nested =
    sub?.name === 'add' && anchor?.workTree
      ? parseNested(
          runProcessSync('git', NESTED_STAGE, { cwd: anchor.workTree, env: pinned }).stdout,
          runProcessSync('git', NESTED_OTHERS, { cwd: anchor.workTree, env: pinned }).stdout,
          anchor.workTree,
        )
      : [];
  return finish(
    { args, sub, anchor, own, cwd, callerEnv: env },
    withOverrides(pinned, gitOverrides(own?.baseline ?? new Map(), current, reachesRemotes(sub?.name))),
    nested,
  );
}

/**
 * The nested repositories of a work tree, as paths from its top: the gitlinks of the index and
 * each untracked folder holding a repository of its own (git lists those as `dir/`).
 */
export async function nestedRepositories(workTree: string, given: NodeJS.ProcessEnv): Promise<string[]> {
  const env = gitEnv(given, resolve(workTree));
  const anchor = anchorFor(resolve(workTree), env);
  const pinned = anchor ? withOverrides(pinnedEnv(anchor, env), gitOverrides(new Map(), undefined)) : env;
  const [stage, others] = await Promise.all([runGit(workTree, NESTED_STAGE, pinned), runGit(workTree, NESTED_OTHERS, pinned)]);
  return parseNested(stage.stdout, others.stdout, workTree);
}

/**
 * The same for a nested repository, looked at once and not anchored (it is the agent's): its git
 * dir given outright, every program setting off as always.
 */
export async function nestedRepositoriesOf(workTree: string, gitDir: string, given: NodeJS.ProcessEnv): Promise<string[]> {
  const env = gitEnv(given, resolve(workTree));
  const pinned = withOverrides({ ...env, GIT_DIR: gitDir, GIT_WORK_TREE: workTree }, gitOverrides(new Map(), undefined));
  const [stage, others] = await Promise.all([runGit(workTree, NESTED_STAGE, pinned), runGit(workTree, NESTED_OTHERS, pinned)]);
  return parseNested(stage.stdout, others.stdout, workTree);
}

interface Call {
  args: readonly string[];
  sub: Subcommand | undefined;
  anchor: GitAnchor | undefined;
  own: Recorded | undefined;
  cwd: string;
  callerEnv: NodeJS.ProcessEnv;
}

function finish({ args, sub, anchor, own, cwd, callerEnv }: Call, pinnedEnv: NodeJS.ProcessEnv, nested: string[]): PreparedCall {
  let env = pinnedEnv;
  if (anchor) assertUnchanged(anchor);
  let out = [...args];
  if (sub && SUBMODULE_BLIND.has(sub.name)) out.splice(sub.index + 1, 0, '--ignore-submodules=all');
  if (sub?.name === 'add' && nested.length > 0) out = withoutNested(out, sub.index, nested);
  if (reachesRemotes(sub?.name) && own) env = withoutPlantedProxy(env, own.baseline);
  if (sub?.name === 'push') ({ args: out, env } = pushToRecordedUrl(out, sub.index, own?.remotes, env));
  // `ls-remote --get-url` only prints what a name resolves to, connecting nowhere.
  if (sub?.name === 'fetch' || (sub?.name === 'ls-remote' && !out.includes('--get-url')))
    ({ args: out, env } = fetchFromRecordedUrl(out, sub.index, own?.fetchRemotes, env));
  if (sub?.name === 'worktree' && anchor) assertWorktreeInside(anchor, resolve(cwd, addedWorktree(args, sub.index) ?? '.'));
  const after = (code: number | null): void => {
    if (sub?.name !== 'worktree' || !anchor) return;
    forgetWorktrees(anchor.commonDir);
    const added = code === 0 ? addedWorktree(args, sub.index) : undefined;
    if (added === undefined) return;
    trust(resolve(cwd, added));
    anchorFor(resolve(cwd, added), callerEnv);
  };
  return { args: out, env, after };
}

// Commands that look into the working tree and take --ignore-submodules.
const SUBMODULE_BLIND = new Set(['diff', 'diff-files', 'diff-index', 'status']);

/** `git add …` with each nested repository left out (a pathspec of the whole tree when none was given). */
function withoutNested(args: string[], index: number, nested: string[]): string[] {
  const dashes = args.indexOf('--', index + 1);
  const operands = args.slice(index + 1, dashes === -1 ? undefined : dashes).filter((arg) => !arg.startsWith('-'));
  const given = dashes === -1 ? operands : [...operands, ...args.slice(dashes + 1)];
  const excluded = nested.map((path) => `:(exclude,top,literal)${path}`);
  const whole = given.length === 0 ? [':/'] : [];
  return dashes === -1 ? [...args, '--', ...whole, ...excluded] : [...args, ...whole, ...excluded];
}

/**
 * A worktree ralph adds is checked out inside the project it anchored, never elsewhere (a path
 * read from a file the agent forged could name the user's git configuration folder). The path
 * is judged where it really leads: its nearest existing folder with every link resolved.
 */
function assertWorktreeInside(anchor: GitAnchor, path: string): void {
  if (anchor.workTree === undefined) return;
  const top = realpathSync(anchor.workTree);
  let existing = path;
  let rest = '';
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest = join(basename(existing), rest);
    existing = dirname(existing);
  }
  const real = join(realpathSync(existing), rest);
  if (real === top || real.startsWith(top + sep)) {
    if (!real.startsWith(join(top, '.git') + sep) && real !== join(top, '.git')) return;
  }
  throw new RalphError('git_worktree_outside', `ralph adds git worktrees only inside the project (${anchor.workTree}); refused ${path}`, {
    exitCode: EXIT.halted,
    hint: 'A worktree path came from a state file that was changed (.ralph/parallel.json?); remove the file or the unit, then run ralph again',
  });
}

function addedWorktree(args: readonly string[], index: number): string | undefined {
  if (args[index + 1] !== 'add') return undefined;
  for (let i = index + 2; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-b' || arg === '-B' || arg === '--reason') i++;
    else if (arg === '--') return args[i + 1];
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** Worktrees ralph adds, removes or prunes get a fresh anchor (their git dirs are made anew). */
function forgetWorktrees(commonDir: string): void {
  const under = join(commonDir, 'worktrees') + sep;
  for (const [cwd, anchor] of anchors) if (anchor.gitDir.startsWith(under)) anchors.delete(cwd);
}

interface Subcommand {
  name: string;
  index: number;
}

// The first word after git's own options (`-C <dir>`, `-c <k=v>`, `--git-dir=…`).
function subcommandOf(args: readonly string[]): Subcommand | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-C' || arg === '-c') i++;
    else if (arg === '--version' || !arg.startsWith('-')) return { name: arg, index: i };
  }
  return undefined;
}

function pinnedEnv(anchor: GitAnchor, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    GIT_DIR: anchor.gitDir,
    GIT_COMMON_DIR: anchor.commonDir,
    ...(anchor.workTree !== undefined ? { GIT_WORK_TREE: anchor.workTree } : {}),
    // No credential prompt on a terminal: an unattended run fails instead of hanging.
    GIT_TERMINAL_PROMPT: '0',
  };
}

/** `onHead` hears the commit HEAD named (null: none yet) when the repository is looked at now and the look found it. */
function anchorFor(cwd: string, env: NodeJS.ProcessEnv, onHead?: (head: string | null) => void): GitAnchor | undefined {
  const known = anchors.get(cwd);
  if (known) return known;
  // rev-parse and `config --list` run no program, whatever the configuration says. A folder ralph
  // was started on is opened whoever owns it (the look is the only call that needs it: the
  // others name the git dir, and git checks no owner then).
  const overrides: Override[] = [...gitOverrides(new Map(), undefined), ...trustOverrides()];
  const look = (args: readonly string[], lookEnv: NodeJS.ProcessEnv = env) => runProcessSync('git', args, { cwd, env: withOverrides(lookEnv, overrides) });
  // The settings as the user left them: listed without ralph's pins, which would be listed too
  // (as `command` entries) and taken for the user's. `config --list` runs no program.
  const list: Look = (args, lookEnv = env) => runProcessSync('git', args, { cwd, env: withOverrides(lookEnv, trustOverrides()) });
  // Taken now or never: a listing of the folder from before it was a repository says nothing of it.
  const listed = snapshotListings.get(cwd);
  snapshotListings.delete(cwd);
  const located = locate(look);
  if (located === undefined) return undefined;
  const { gitDir, common, workTree } = located;
  const commonDir = resolve(cwd, common);
  const anchor = makeAnchor(gitDir, commonDir, workTree);
  if (anchor.foreign && workTree !== undefined) assertOwnWorkTree(workTree, gitDir);
  anchors.set(cwd, anchor);
  if (located.head !== undefined) onHead?.(located.head);
  if (!recorded.has(commonDir)) recorded.set(commonDir, recordSettings(anchor, env, { look, list, listed }));
  return anchor;
}

interface SettingsSources {
  /** A git call with every program setting pinned off. */
  look: Look;
  /** A `git config --list` with no pin of ralph's. */
  list: Look;
  /** The scoped listing asked in the same folder for the user's snapshot, when it was. */
  listed: string | undefined;
}

function recordSettings(anchor: GitAnchor, env: NodeJS.ProcessEnv, { look, list, listed }: SettingsSources): Recorded {
  const pinned = pinnedEnv(anchor, env);
  // One `git remote -v` for every remote's URLs, asked only when there are remotes.
  const urlsOf = (names: readonly string[]) =>
    names.length === 0 ? { push: new Map<string, string>(), fetch: new Map<string, string>() } : remoteUrlsIn(look(['remote', '-v'], pinned).stdout);
  if (!anchor.foreign) {
    // The listing names every remote `git remote` would (git makes one of each `remote.<name>.*`
    // key): no call of its own is needed to find them. Asked in this folder for the user's
    // snapshot, it holds this repository's settings already: the same files (the snapshot's
    // copies hold the user's entries as they are listed there), the same repository.
    const listing = listed !== undefined ? { code: 0, stdout: unscoped(parseScopedListing(listed)) } : list(CONFIG_LIST_ARGS, pinned);
    // Without the listing, `git remote -v` itself names every remote.
    const urls = listing.code === 0 ? urlsOf(remoteNamesIn(listing.stdout)) : remoteUrlsIn(look(['remote', '-v'], pinned).stdout);
    return { baseline: parseExecConfig(listing.code === 0 ? listing.stdout : ''), remotes: urls.push, fetchRemotes: urls.fetch };
  }
  // Another user's repository: its own config (local and worktree scopes) names no program for ralph (its core.ignoreCase holds).
  const urls = remoteUrlsIn(look(['remote', '-v'], pinned).stdout);
  const scoped = listed ?? list([...CONFIG_LIST_ARGS, '--show-scope'], pinned);
  const scopedText = typeof scoped === 'string' ? scoped : scoped.code === 0 ? scoped.stdout : '';
  const users = parseScopedListing(scopedText).filter((e) => (e.scope !== 'local' && e.scope !== 'worktree') || isMatchingKey(e.key));
  return { baseline: parseExecConfig(unscoped(users)), remotes: urls.push, fetchRemotes: urls.fetch };
}

/** Scoped entries as `git config -z --list` prints them. */
function unscoped(entries: readonly ScopedEntry[]): string {
  return entries.map((e) => (e.value === null ? e.key : `${e.key}\n${e.value}`)).join('\0');
}

/** The caller's environment as git gets it: the user's configuration as snapshotted, no inherited location. */
// The graft file every call reads: none (a path below /dev/null cannot exist). The agent's
// `.git/info/grafts` would give commits other parents than those stored and pushed; an empty
// file that exists would make git print its deprecation hint on every call.
const NO_GRAFT_FILE = '/dev/null/grafts';

function gitEnv(env: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  // Taken in the folder of the first call (the project, at run start): a conditional include applies as it does there.
  const own = userConfigEnv(env, (clean) => {
    const listing = runProcessSync('git', ['config', '-z', '--list', '--show-scope', '--includes'], { cwd, env: withOverrides(clean, trustOverrides()) });
    if (listing.code !== 0) return '';
    snapshotListings.set(cwd, listing.stdout);
    return listing.stdout;
  });
  return { ...own, GIT_GRAFT_FILE: NO_GRAFT_FILE };
}

function trustOverrides(): Override[] {
  return [...trusted].map((dir): Override => ['safe.directory', dir]);
}

/** `dir` (and where it really is) may be opened whoever owns it. */
function trust(dir: string): void {
  trusted.add(dir);
  try {
    trusted.add(realpathSync(dir));
  } catch {
    // not there (yet)
  }
}

function runGit(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  const out: Buffer[] = [];
  const handle = startProcess('git', args, { cwd, env, input: '', timeoutMs: 60_000, onStdout: (chunk) => out.push(chunk) });
  return handle.done.then((exit) => ({ code: exit.code, stdout: exit.code === 0 ? Buffer.concat(out).toString('utf8') : '' }));
}
