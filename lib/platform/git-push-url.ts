// A push, fetch or ls-remote as the git gateway runs it: to or from the URL the remote had when
// the run started, never what a remote name says now, with the URL (which may carry a token) kept
// out of argv, and for a local path a receive-pack that runs none of the receiving repository's hooks.

import { isAbsolute } from 'node:path';
import { EXIT, RalphError } from '../errors.js';
import { onlyTransport, withOverrides, type Override } from './git-config-pins.js';
import { randomHex } from './hash.js';

// push options that take their value as the next argument.
const PUSH_VALUE_OPTIONS = new Set(['-o', '--push-option', '--repo', '--receive-pack', '--exec']);

/**
 * `git push <remote> …` with the remote's URL as recorded at run start; a remote the run did not
 * start with is refused. The URL (which may carry a token) stays out of argv: argv names an alias
 * that a `url.<recorded>.insteadOf` in the environment turns into it. A local path gets a
 * receive-pack that runs none of the receiving repository's hooks (git does not hand ralph's
 * overrides on to the receiving side of a local push). No upstream is written.
 */
export function pushToRecordedUrl(
  args: string[],
  index: number,
  remotes: ReadonlyMap<string, string> | undefined,
  env: NodeJS.ProcessEnv,
): { args: string[]; env: NodeJS.ProcessEnv } {
  const out = args.filter((arg, i) => i <= index || (arg !== '-u' && arg !== '--set-upstream'));
  const { url, env: pushEnv } = toRecordedUrl(out, index, remotes, env, { verb: 'pushes', preposition: 'to', valueOptions: PUSH_VALUE_OPTIONS, push: true });
  if (isLocalUrl(url)) out.splice(index + 1, 0, `--receive-pack=git -c core.hooksPath=/dev/null -c core.fsmonitor=false receive-pack`);
  return { args: out, env: pushEnv };
}

// fetch and ls-remote options that take their value as the next argument.
const FETCH_VALUE_OPTIONS = new Set([
  '-o',
  '--server-option',
  '--upload-pack',
  '--exec',
  '--depth',
  '--deepen',
  '--shallow-since',
  '--shallow-exclude',
  '--negotiation-tip',
  '--refmap',
  '-j',
  '--jobs',
  '--recurse-submodules-default',
  '--sort',
]);

/**
 * `git fetch <remote> …` and `git ls-remote <remote> …` the same way: from the URL the remote
 * had when the run started, through that URL's transport alone. A remote named in argv reads its
 * `url`, `uploadpack`, `vcs` and `proxy` from the repository's config, which the agent can write
 * and which no override can set back (of two values git takes the first, the repository's): a
 * planted local URL with its own upload-pack would run the agent's program. The alias is no
 * remote of the config, so none of those apply.
 */
export function fetchFromRecordedUrl(
  args: string[],
  index: number,
  remotes: ReadonlyMap<string, string> | undefined,
  env: NodeJS.ProcessEnv,
): { args: string[]; env: NodeJS.ProcessEnv } {
  const out = [...args];
  return {
    args: out,
    env: toRecordedUrl(out, index, remotes, env, { verb: 'fetches', preposition: 'from', valueOptions: FETCH_VALUE_OPTIONS, push: false }).env,
  };
}

interface RemoteCall {
  /** What the refusal says ralph does, and to or from where ("pushes", "to"; "fetches", "from"). */
  verb: string;
  preposition: string;
  /** The subcommand's options that take their value as the next argument. */
  valueOptions: ReadonlySet<string>;
  /** A push: its URL is pinned for pushes too (a pushInsteadOf applies where an insteadOf matched). */
  push: boolean;
}

/** Puts the alias of the remote's recorded URL in place of its name in `out`; the URL and the environment that resolves the alias. */
function toRecordedUrl(
  out: string[],
  index: number,
  remotes: ReadonlyMap<string, string> | undefined,
  env: NodeJS.ProcessEnv,
  call: RemoteCall,
): { url: string; env: NodeJS.ProcessEnv } {
  const at = remoteArgument(out, index, call.valueOptions);
  const name = at === -1 ? undefined : out[at]!;
  if (name === undefined)
    throw new RalphError(
      call.push ? 'git_push_unnamed' : 'git_fetch_unnamed',
      `ralph ${call.verb} only ${call.preposition} a remote named on the command line`,
      {
        exitCode: EXIT.halted,
      },
    );
  const recordedUrl = remotes?.get(name);
  const url = recordedUrl ?? (looksLikeUrl(name) ? name : undefined);
  if (url === undefined)
    throw new RalphError(
      call.push ? 'git_push_unknown_remote' : 'git_fetch_unknown_remote',
      `git remote "${name}" was not configured when the run started; ralph ${call.verb} only ${call.preposition} remotes recorded then`,
      { exitCode: EXIT.halted },
    );
  let remoteEnv = withOverrides(env, onlyTransport(transportOf(url)));
  if (recordedUrl !== undefined) {
    const alias = recordedRemoteAlias();
    out[at] = alias;
    const rewrites: Override[] = [[`url.${recordedUrl}.insteadof`, alias]];
    if (call.push) rewrites.push([`url.${recordedUrl}.pushinsteadof`, alias]);
    remoteEnv = withOverrides(remoteEnv, rewrites);
  }
  return { url, env: remoteEnv };
}

/** Where in `args` the remote is named (the first argument after the subcommand's options), or -1. */
function remoteArgument(args: readonly string[], index: number, valueOptions: ReadonlySet<string>): number {
  for (let i = index + 1; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return i + 1 < args.length ? i + 1 : -1;
    if (valueOptions.has(arg)) i++;
    else if (!arg.startsWith('-')) return i;
  }
  return -1;
}

/**
 * What argv names in place of a recorded remote's URL: a name no one can know beforehand. git
 * reads the repository's config (the agent's to write) before these overrides, and of two
 * rewrites as long as each other the first read wins: a `url.<x>.insteadOf`, a
 * `url.<x>.pushInsteadOf` or a `remote "<name>"` the agent planted for a fixed name would send
 * the push to <x>. A planted prefix of this one is shorter than the whole name the overrides
 * give, and the push URL is pinned too (a pushInsteadOf applies even where an insteadOf matched).
 */
function recordedRemoteAlias(): string {
  return `ralph-recorded-remote-${randomHex(12)}:`;
}

function looksLikeUrl(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || isAbsolute(text);
}

/** The name of the transport git reaches `url` through (`protocol.<name>.allow`). */
function transportOf(url: string): string {
  if (isLocalUrl(url)) return 'file';
  const helper = /^([A-Za-z0-9][A-Za-z0-9+.-]*)::/.exec(url);
  if (helper) return helper[1]!;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  const name = scheme?.[1]!.toLowerCase();
  return name === undefined || name === 'git+ssh' || name === 'ssh+git' ? 'ssh' : name;
}

/** A URL git reaches through its local transport (a path or file://), as opposed to ssh or http. */
export function isLocalUrl(url: string): boolean {
  if (/^file:\/\//i.test(url)) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return false;
  // scp-like `host:path` (a colon before any slash) is ssh.
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon === -1 || (slash !== -1 && slash < colon);
}

/**
 * The remotes a `git config -z --list` listing configures, in order: the `<name>` of each
 * `remote.<name>.<key>` (a name may hold dots). A name that is no remote of git's only has its
 * push URL asked for in vain, and one missed would only have its pushes refused.
 */
export function remoteNamesIn(listing: string): string[] {
  const names = new Set<string>();
  for (const entry of listing.split('\0')) {
    const newline = entry.indexOf('\n');
    const key = newline === -1 ? entry : entry.slice(0, newline);
    const last = key.lastIndexOf('.');
    if (key.startsWith('remote.') && last > 'remote.'.length) names.add(key.slice('remote.'.length, last));
  }
  return [...names];
}

// A line of `git remote -v`: `<name>\t<url> (fetch)`, with ` [<filter>]` after it for a partial
// clone's remote, or `… (push)`.
const REMOTE_LINE = /^([^\t]+)\t(.*) \((fetch|push)\)(?: \[.*\])?$/;

/**
 * Each remote's push and fetch URLs from `git remote -v` (each URL as git reaches it:
 * `url.<base>.insteadOf` and `pushInsteadOf` applied, as `git remote get-url [--push]` gives
 * them); the first of a remote's URLs, as git uses.
 */
export function remoteUrlsIn(listing: string): { push: Map<string, string>; fetch: Map<string, string> } {
  const urls = { push: new Map<string, string>(), fetch: new Map<string, string>() };
  for (const line of listing.split('\n')) {
    const match = REMOTE_LINE.exec(line);
    if (!match) continue;
    const kind = match[3] === 'fetch' ? urls.fetch : urls.push;
    if (!kind.has(match[1]!)) kind.set(match[1]!, match[2]!);
  }
  return urls;
}
