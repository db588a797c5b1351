// A push as the git gateway runs it: to the URL the remote had when the run started, never to
// what a remote name says now, with the URL (which may carry a token) kept out of argv, and for a
// local path a receive-pack that runs none of the receiving repository's hooks.

import { isAbsolute } from 'node:path';
import { EXIT, RalphError } from '../errors.js';
import { onlyTransport, withOverrides } from './git-config-pins.js';
import { randomHex } from './hash.js';

// push options that take their value as the next argument.
const PUSH_VALUE_OPTIONS = new Set(['-o', '--push-option', '--repo', '--receive-pack', '--exec']);

/**
 * `git push <remote> …` with the remote's URL as recorded at run start; a remote the run did not
 * start with is refused. The URL (which may carry a token) stays out of argv: argv names an alias
 * that a `url.<recorded>.insteadOf` in the environment turns into it. A local path gets a
 * receive-pack that runs no hook there (git does not hand ralph's overrides on to the receiving
 * side of a local push). No upstream is written.
 */
export function pushToRecordedUrl(
  args: string[],
  index: number,
  remotes: ReadonlyMap<string, string> | undefined,
  env: NodeJS.ProcessEnv,
): { args: string[]; env: NodeJS.ProcessEnv } {
  const out = args.filter((arg, i) => i <= index || (arg !== '-u' && arg !== '--set-upstream'));
  let at = -1;
  for (let i = index + 1; i < out.length; i++) {
    const arg = out[i]!;
    if (arg === '--') {
      at = i + 1 < out.length ? i + 1 : -1;
      break;
    }
    if (PUSH_VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith('-')) {
      at = i;
      break;
    }
  }
  const name = at === -1 ? undefined : out[at]!;
  if (name === undefined) throw new RalphError('git_push_unnamed', 'ralph pushes only to a remote named on the command line', { exitCode: EXIT.halted });
  const recordedUrl = remotes?.get(name);
  const url = recordedUrl ?? (looksLikeUrl(name) ? name : undefined);
  if (url === undefined)
    throw new RalphError(
      'git_push_unknown_remote',
      `git remote "${name}" was not configured when the run started; ralph pushes only to remotes recorded then`,
      { exitCode: EXIT.halted },
    );
  let pushEnv = withOverrides(env, onlyTransport(transportOf(url)));
  if (recordedUrl !== undefined) {
    const alias = recordedRemoteAlias();
    out[at] = alias;
    pushEnv = withOverrides(pushEnv, [
      [`url.${recordedUrl}.insteadof`, alias],
      [`url.${recordedUrl}.pushinsteadof`, alias],
    ]);
  }
  if (isLocalUrl(url)) out.splice(index + 1, 0, `--receive-pack=git -c core.hooksPath=/dev/null -c core.fsmonitor=false receive-pack`);
  return { args: out, env: pushEnv };
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
