// The configuration side of the git gateway (lib/platform/git-gateway.ts): which settings name
// a program, and the overrides that pin them. The agent can write `.git/config`,
// `.git/info/attributes`, `.gitattributes` and `.git/hooks/`, and git runs programs named there:
// core.fsmonitor on every index refresh, filter drivers on add/checkout, textconv and diff
// drivers on diff, hooks on commit, credential helpers and ssh commands on push. Every git command
// ralph starts carries overrides in GIT_CONFIG_PARAMETERS — the channel `git -c` uses, so no value
// lands in argv — that pin each such key to the value it had when the run started (the user's
// own), or to a harmless value when it had none:
//
// - commits are read from their objects: no replace ref is followed (core.useReplaceRefs, which
//   outranks GIT_NO_REPLACE_OBJECTS when the repository's config sets it), no commit-graph file
//   is read and no graft either (GIT_GRAFT_FILE names no file: git-gateway.ts). An object file
//   the agent rewrote is still read as it is (git checks no hash on reading): a check that must
//   judge an old commit reads it before the agent runs (the fleet's hold-back: job-git.ts);
// - hooks never run: core.hooksPath is /dev/null (git looks for /dev/null/<hook>, which cannot
//   exist). A hooks folder inside the project (husky's `.husky/`) is the agent's to write, so
//   not even the user's hooks run from ralph's bookkeeping commits;
// - no fsmonitor, whatever any configuration says; protocol.ext.allow is `never` (an `ext::`
//   remote is a shell command); git never enters a nested repository (submodule recursion and
//   submodule status are off: a nested repository's own configuration would apply there, out of
//   reach of these overrides, since git does not hand them on to it);
// - the other keys that name a program keep their run-start values; keys the agent added (a new
//   filter or merge driver, a credential helper) are emptied, which git reads as "none" or
//   refuses (an empty diff.external fails a diff: ralph's diffs pass --no-ext-diff), and a new
//   textconv becomes `cat`;
// - core.ignoreCase keeps its run-start value: turned on, `git add` files a new path under the
//   case of a folder the index already holds (`.GITHUB/x` becomes `.github/x`), past every path
//   ralph leaves out of an add, which matches case for case;
// - a push sends the refs ralph names, no more: push.followTags is off (an annotated tag the
//   agent made would go with it, and a tag pushed can start a release workflow);
// - the keys that steer where a push or fetch connects and which certificate it trusts (a proxy,
//   a resolved address, sslVerify, a CA, a cookie jar) keep their run-start values too: sslVerify
//   turned off since is turned back on;
// - a call that is not meant to reach a remote (all but push, fetch, pull, ls-remote and clone)
//   reaches none: git fetches an object it lacks from a promisor remote on its own (a lazy
//   fetch, even in `merge-base` or `diff a...b`), and a promisor remote the agent configured
//   would run its `uploadpack` or `core.gitProxy` program, which no override can set back (of
//   two uploadpack values git takes the first, the repository's). Every transport is refused
//   instead, so that fetch fails before it connects or runs anything.

export type ConfigValues = Map<string, string[]>;
/** A `key=value` given to git as `-c` would. */
export type Override = [key: string, value: string];

// Keys that name a program, as `git config --list` prints them (section and name in lower case).
const EXEC_KEY = new RegExp(
  '^(?:' +
    [
      'core\\.(?:fsmonitor|hookspath|sshcommand|pager|askpass|editor|gitproxy|alternaterefscommand)',
      'sequence\\.editor',
      'diff\\.external',
      'credential\\.(?:.+\\.)?helper',
      'filter\\..+\\.(?:clean|smudge|process)',
      'diff\\..+\\.(?:textconv|command)',
      'merge\\..+\\.driver',
      'pager\\..+',
      'remote\\..+\\.(?:uploadpack|receivepack)',
      'gpg\\.(?:.+\\.)?program',
      'gpg\\.ssh\\.defaultkeycommand',
    ].join('|') +
    ')$',
);

// Keys that decide which host a connection reaches and whom it trusts there (for every URL, or
// for a `http.<url>.` prefix): an agent that routes a push through its own proxy or address with
// verification off, or its own CA, receives the credentials the user's helper sends with it. And
// the cookie jar: read, it sends the agent's cookies; saved, git writes it over any file the user
// can write.
const CONNECTION_KEY = /^http\.(?:.+\.)?(?:proxy|curloptresolve|sslverify|sslcainfo|sslcapath|pinnedpubkey|proxysslcainfo|cookiefile|savecookies)$/;

/** Whether a configuration key (as `git config --list` prints it) changes how git matches paths (no program). */
export function isMatchingKey(key: string): boolean {
  return MATCHING_KEY.test(key);
}

/** Whether a configuration key (as `git config --list` prints it) names a program. */
export function isExecKey(key: string): boolean {
  return EXEC_KEY.test(key);
}

// Settings that change what git adds (not programs), recorded at run start to be pinned.
const MATCHING_KEY = /^core\.ignorecase$/;

// Pinned on every call; the value used when the run started without one.
const PINNED: ReadonlyArray<[string, string]> = [
  ['core.ignorecase', 'false'],
  ['core.sshcommand', 'ssh'],
  ['core.pager', 'cat'],
  ['core.askpass', ''],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['diff.external', ''],
  ['credential.helper', ''],
  ['gpg.program', 'gpg'],
  ['gpg.openpgp.program', 'gpg'],
  ['gpg.x509.program', 'gpgsm'],
  ['gpg.ssh.program', 'ssh-keygen'],
];
// Forced whatever the run-start value.
const FORCED: ReadonlyArray<[string, string]> = [
  ['core.hookspath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['protocol.ext.allow', 'never'],
  // A nested repository is never entered: no status, diff or filter runs inside it.
  ['diff.ignoresubmodules', 'all'],
  ['status.submodulesummary', 'false'],
  ['submodule.recurse', 'false'],
  ['fetch.recursesubmodules', 'false'],
  ['push.recursesubmodules', 'no'],
  // No background work: gc and maintenance are the user's, not ralph's bookkeeping's.
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  // Objects are read as stored: a replace ref the agent made would show ralph's checks another
  // commit, tree or blob than the one a push sends (git packs no replacement), and a commit-graph
  // file it wrote, another root tree or other parents for a commit.
  ['core.usereplacerefs', 'false'],
  ['core.commitgraph', 'false'],
  ['push.followtags', 'false'],
];
// Subcommands that read no file content of the working tree, so run no filter or diff driver:
// the pinned keys are enough. Not write-tree: it re-checks racily clean entries through the
// clean filter.
const NO_DRIVERS = new Set([
  'rev-parse',
  'ls-files',
  'ls-tree',
  'commit-tree',
  'mktree',
  'update-ref',
  'for-each-ref',
  'show-ref',
  'symbolic-ref',
  'config',
  'var',
  'check-ignore',
  'rev-list',
  'merge-base',
  'init',
  'diff-tree',
  '--version',
  'version',
]);

// Subcommands that reach a remote on purpose.
const REACHES_REMOTES = new Set(['push', 'fetch', 'pull', 'ls-remote', 'clone']);
// Git's own transports and the helpers it ships: a `protocol.<name>.allow` in the repository's
// config outranks `protocol.allow`, so each is refused by name. Another helper name needs a
// `git-remote-<name>` program on PATH.
const TRANSPORTS = ['file', 'git', 'ssh', 'http', 'https', 'ftp', 'ftps', 'ext', 'fd'];
const NO_TRANSPORT: ReadonlyArray<Override> = [['protocol.allow', 'never'], ...TRANSPORTS.map((name): Override => [`protocol.${name}.allow`, 'never'])];

/**
 * For a push: only the transport of the URL pushed to. A lazy fetch the push starts (git packs
 * an object it lacks) from a promisor remote of another transport fails before it connects.
 */
export function onlyTransport(name: string): Override[] {
  // ext:: runs a command of its URL's: refused always.
  return name === 'ext' ? [...NO_TRANSPORT] : [...NO_TRANSPORT, [`protocol.${name}.allow`, 'always']];
}

/** Whether a git subcommand is one that reaches a remote on purpose (the others reach none). */
export function reachesRemotes(sub: string | undefined): boolean {
  return sub !== undefined && REACHES_REMOTES.has(sub);
}

/**
 * The `key=value` overrides: the pinned keys at their run-start values (or harmless ones), the
 * forced keys, and every program-running key in `current` (when read) that differs from the
 * run start, set back to its run-start values or emptied. A key is first emptied, which resets
 * a list (credential.helper), then given its values; for a single value the last one wins.
 * Unless the call reaches a remote on purpose, every transport is refused (no lazy fetch).
 */
export function gitOverrides(baseline: ConfigValues, current: ConfigValues | undefined, remote = false): Override[] {
  const out: Override[] = [];
  const pin = (key: string, fallback: string): void => {
    const values = baseline.get(key);
    out.push([key, '']);
    if (values && values.length > 0) for (const v of values) out.push([key, v]);
    else if (fallback !== '') out.push([key, fallback]);
  };
  for (const [key, fallback] of PINNED) pin(key, fallback);
  if (current) {
    const pinned = new Set(PINNED.map(([key]) => key));
    const keys = new Set([...current.keys(), ...baseline.keys()]);
    for (const key of keys) {
      if (pinned.has(key) || FORCED.some(([k]) => k === key)) continue;
      if (sameValues(current.get(key), baseline.get(key))) continue;
      // An empty textconv is run as a program named "" (the diff fails); cat converts nothing.
      // An empty boolean is false: verification is turned back on.
      pin(key, key.endsWith('.textconv') ? 'cat' : key.endsWith('.sslverify') ? 'true' : '');
      // A neutralised filter must not be required either, or git refuses the file.
      const filter = /^(filter\..+)\.(?:clean|smudge|process)$/.exec(key);
      if (filter && !baseline.has(key)) out.push([`${filter[1]}.required`, 'false']);
    }
  }
  for (const [key, value] of FORCED) out.push([key, value]);
  if (!remote) out.push(...NO_TRANSPORT);
  return out;
}

/** `git config -z --list` output → the program-running, connection and matching keys and their values, in order. */
export function parseExecConfig(listing: string): ConfigValues {
  const values: ConfigValues = new Map();
  for (const entry of listing.split('\0')) {
    if (entry === '') continue;
    const newline = entry.indexOf('\n');
    const key = newline === -1 ? entry : entry.slice(0, newline);
    if (!EXEC_KEY.test(key) && !CONNECTION_KEY.test(key) && !MATCHING_KEY.test(key)) continue;
    const list = values.get(key) ?? [];
    list.push(newline === -1 ? '' : entry.slice(newline + 1));
    values.set(key, list);
  }
  return values;
}

/** Whether a git subcommand can read working-tree content, and so run a filter or diff driver. */
export function runsDrivers(sub: string | undefined): boolean {
  return sub === undefined || !NO_DRIVERS.has(sub);
}

/** The configuration listing git prints for `config -z --list` (it runs no program). */
export const CONFIG_LIST_ARGS = ['config', '-z', '--list'] as const;

/**
 * A call that reaches a git:// URL runs the first `core.gitProxy` that matches its host, and the
 * repository's config (the agent's to write) is read before any override: an empty override
 * cannot set back a proxy planted there. GIT_PROXY_COMMAND, when set, is used instead of every
 * `core.gitProxy` (empty: none), so a run that started without one connects directly. The
 * user's own GIT_PROXY_COMMAND is kept.
 */
export function withoutPlantedProxy(env: NodeJS.ProcessEnv, baseline: ConfigValues): NodeJS.ProcessEnv {
  if (env.GIT_PROXY_COMMAND !== undefined || (baseline.get('core.gitproxy')?.length ?? 0) > 0) return env;
  return { ...env, GIT_PROXY_COMMAND: '' };
}

/** `env` with the overrides appended to GIT_CONFIG_PARAMETERS. */
export function withOverrides(env: NodeJS.ProcessEnv, overrides: Override[]): NodeJS.ProcessEnv {
  const quoted = overrides.map(quoteOverride).join(' ');
  const earlier = env.GIT_CONFIG_PARAMETERS;
  return { ...env, GIT_CONFIG_PARAMETERS: earlier ? `${earlier} ${quoted}` : quoted };
}

// Git's own quoting for GIT_CONFIG_PARAMETERS: 'key=value' in single quotes, ' as '\''. A key
// with `=` in its subsection takes the 'key'='value' form (git 2.31+; older git refuses it,
// which fails closed), since in the first form the first `=` ends the key.
function quoteOverride([key, value]: Override): string {
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  return key.includes('=') ? `${quote(key)}=${quote(value)}` : quote(`${key}=${value}`);
}

function sameValues(a: string[] | undefined, b: string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
