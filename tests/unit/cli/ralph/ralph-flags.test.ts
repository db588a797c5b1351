// Every row of the `ralph` flag table, parsed in-process: argv → the options and the config keys
// it sets; for each flag with a bounded number, the values just past its key's bounds → an error
// naming the flag. A row without a case here fails the first test, so a new flag comes with one.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/config/load-config.js';
import { CONFIG_SCHEMA, defaultConfig, type ConfigKey } from '../../../../lib/config/schema.js';
import { RALPH_FLAGS } from '../../../../lib/cli/ralph/ralph-flags.js';
import { renderRalphHelp } from '../../../../lib/cli/ralph/ralph-help.js';
import { parseRalphArgs, type RalphCliOptions } from '../../../../lib/cli/ralph/ralph-options.js';
import { isRalphError } from '../../../../lib/errors.js';

type Expected = Partial<Omit<RalphCliOptions, 'argv'>>;

/** One case per flag: its argv, and what parsing it gives (flags: the whole flag layer). */
const CASES: Record<string, [string[], Expected]> = {
  help: [['--help'], { action: 'help', flags: {} }],
  version: [['--version'], { action: 'version', flags: {} }],
  calls: [['--calls', '50'], { action: 'run', flags: { MAX_CALLS_PER_HOUR: 50 } }],
  prompt: [['--prompt', 'task.md'], { flags: { PROMPT_FILE: 'task.md' } }],
  status: [['--status'], { action: 'status', flags: {} }],
  monitor: [['--monitor'], { action: 'monitor', flags: {} }],
  verbose: [['--verbose'], { flags: { RALPH_VERBOSE: true } }],
  live: [['--live'], { flags: { LIVE_OUTPUT: true } }],
  timeout: [['--timeout', '30'], { flags: { CLAUDE_TIMEOUT_MINUTES: 30 } }],
  'reset-circuit': [['--reset-circuit'], { action: 'reset-circuit' }],
  'circuit-status': [['--circuit-status'], { action: 'circuit-status' }],
  'auto-reset-circuit': [['--auto-reset-circuit'], { flags: { CB_AUTO_RESET: true } }],
  'reset-session': [['--reset-session'], { action: 'reset-session' }],
  'parallel-abandon': [['--parallel-abandon'], { action: 'parallel-abandon' }],
  'accept-item': [['--accept-item', '2', '--accept-item', 'write the parser'], { action: 'accept-item', acceptItems: ['2', 'write the parser'] }],
  'dry-run': [['--dry-run'], { flags: { DRY_RUN: true } }],
  notify: [['--notify'], { flags: { ENABLE_NOTIFICATIONS: true } }],
  backup: [['--backup'], { flags: { ENABLE_BACKUP: true } }],
  rollback: [['--rollback', 'ralph-backup-1'], { action: 'rollback', rollbackTarget: 'ralph-backup-1' }],
  sandbox: [['--sandbox', 'bwrap'], { flags: { SANDBOX_PROVIDER: 'bwrap' } }],
  'sandbox-build': [['--sandbox-build'], { action: 'sandbox-build' }],
  'sandbox-image': [['--sandbox', 'docker', '--sandbox-image', 'node:20'], { flags: { SANDBOX_PROVIDER: 'docker', SANDBOX_DOCKER_IMAGE: 'node:20' } }],
  'sandbox-memory': [['--sandbox', 'docker', '--sandbox-memory', '512m'], { flags: { SANDBOX_PROVIDER: 'docker', SANDBOX_DOCKER_MEMORY: '512m' } }],
  'sandbox-cpus': [['--sandbox', 'docker', '--sandbox-cpus', '1.5'], { flags: { SANDBOX_PROVIDER: 'docker', SANDBOX_DOCKER_CPUS: '1.5' } }],
  'sandbox-network': [['--sandbox', 'bwrap', '--sandbox-network', 'none'], { flags: { SANDBOX_PROVIDER: 'bwrap', SANDBOX_DOCKER_NETWORK: 'none' } }],
  'allow-root-agent': [['--allow-root-agent'], { flags: { ALLOW_ROOT_AGENT: true } }],
  'show-tool-args': [['--show-tool-args'], { flags: { LIVE_SHOW_TOOL_ARGS: true } }],
  'queue-status': [['--queue-status', '--json'], { action: 'queue', queue: { kind: 'status', json: true } }],
  'process-queue': [['--process-queue'], { action: 'queue', queue: { kind: 'process', haltOnFailure: false, parallel: 1 } }],
  'resume-queue': [
    ['--resume-queue', '--parallel', '3'],
    { action: 'queue', flags: { PARALLEL: 3 }, queue: { kind: 'process', haltOnFailure: false, parallel: 3 } },
  ],
  'halt-on-failure': [['--process-queue', '--halt-on-failure'], { haltOnFailure: true, queue: { kind: 'process', haltOnFailure: true, parallel: 1 } }],
  'queue-next': [['--queue-next'], { action: 'queue', queue: { kind: 'next' } }],
  'queue-clear': [['--queue-clear'], { action: 'queue', queue: { kind: 'clear' } }],
  'queue-remove': [['--queue-remove', '#12'], { action: 'queue', queue: { kind: 'remove', ref: '#12' } }],
  'output-format': [['--output-format', 'text'], { flags: { CLAUDE_OUTPUT_FORMAT: 'text' } }],
  'allowed-tools': [['--allowed-tools', 'Read,Bash(git push *)'], { flags: { ALLOWED_TOOLS: 'Read,Bash(git push *)' } }],
  continue: [['--no-continue'], { flags: { SESSION_CONTINUITY: false } }],
  'session-expiry': [['--session-expiry', '48'], { flags: { SESSION_EXPIRY_HOURS: 48 } }],
  'github-issue': [['--github-issue', 'owner/repo#7'], { flags: { GITHUB_ISSUE: 'owner/repo#7' } }],
  'comment-progress': [['--comment-progress'], { flags: { COMMENT_PROGRESS: true } }],
  'comment-interval': [['--comment-interval', '2'], { flags: { COMMENT_INTERVAL: 2 } }],
  'close-summary': [['--close-summary'], { flags: { CLOSE_SUMMARY: true } }],
  'create-pr': [['--create-pr'], { flags: { CREATE_PR: true } }],
  'draft-pr': [['--draft-pr'], { flags: { DRAFT_PR: true } }],
  'link-issue': [['--link-issue'], { flags: { LINK_ISSUE: true } }],
  'create-followups': [['--create-followups'], { flags: { CREATE_FOLLOWUPS: true } }],
  'followup-label': [['--followup-label', 'debt'], { flags: { FOLLOWUP_LABEL: 'debt' } }],
  'add-label': [['--add-label', 'done', '--add-label=shipped'], { flags: { ADD_COMPLETION_LABELS: 'done,shipped' } }],
  'auto-close': [['--auto-close'], { flags: { AUTO_CLOSE: true } }],
  agent: [['--agent', 'codex'], { flags: { AGENT_PROVIDER: 'codex' } }],
  'fallback-agent': [['--fallback-agent', 'gemini', '--fallback-agent', 'codex,claude'], { flags: { FALLBACK_AGENTS: 'gemini,codex,claude' } }],
  parallel: [['--parallel', '4'], { action: 'run', flags: { PARALLEL: 4 } }],
  'parallel-land': [['--parallel', '2', '--parallel-land', 'pr'], { action: 'run', flags: { PARALLEL: 2, PARALLEL_LAND: 'pr' } }],
  'max-loops': [['--max-loops', '0'], { flags: { MAX_LOOPS: 0 } }],
  'max-cost': [['--max-cost', '2.5'], { flags: { MAX_COST_USD: 2.5 } }],
  'max-run-minutes': [['--max-run-minutes', '90'], { flags: { MAX_RUN_MINUTES: 90 } }],
  delay: [['--delay', '0.5'], { flags: { LOOP_DELAY_SECONDS: 0.5 } }],
  fresh: [['--fresh'], { fresh: true, flags: {} }],
  config: [['--config'], { action: 'config', flags: {} }],
  doctor: [['--doctor'], { action: 'doctor' }],
  demo: [['--demo', '--monitor'], { action: 'demo', monitor: true }],
  json: [['--status', '--json'], { action: 'status', json: true }],
  jq: [['--config', '--jq', '.MAX_LOOPS'], { action: 'config', json: true, jq: '.MAX_LOOPS' }],
  'keep-monitor': [['--monitor', '--keep-monitor'], { action: 'monitor', keepMonitor: true }],
  web: [['--web'], { action: 'run', web: { host: '127.0.0.1', port: 0 } }],
  'web-port': [['--web', '--web-port', '8420'], { action: 'run', web: { host: '127.0.0.1', port: 8420 } }],
  'web-host': [['--web', '--web-host', '0.0.0.0'], { action: 'run', web: { host: '0.0.0.0', port: 0 } }],
  force: [['--rollback', 'b', '--force'], { action: 'rollback', force: true }],
  debug: [['--debug'], { debug: true, action: 'run' }],
};

/** The message of the error parsing `argv` throws (the test fails if it throws none). */
function parseError(argv: string[]): string {
  try {
    parseRalphArgs(argv);
  } catch (error) {
    if (isRalphError(error)) return error.message;
    throw error;
  }
  throw new Error(`ralph ${argv.join(' ')} was accepted`);
}

describe('the ralph flag table', () => {
  it('has a case here for every row (and none for a flag it lacks)', () => {
    expect(Object.keys(CASES).sort()).toEqual(RALPH_FLAGS.map((flag) => flag.name).sort());
  });

  it.each(Object.entries(CASES))('--%s: argv → options', (_name, [argv, expected]) => {
    expect(parseRalphArgs(argv)).toMatchObject({ ...expected, argv });
  });

  it.each(RALPH_FLAGS.filter((flag) => flag.alias !== undefined).map((flag) => [flag.alias!, flag.name] as const))('-%s is --%s', (alias, name) => {
    const [argv] = CASES[name]!;
    const short = argv.map((arg) => (arg === `--${name}` ? `-${alias}` : arg));
    expect(short).not.toEqual(argv);
    const { argv: _long, ...long } = parseRalphArgs(argv);
    expect(parseRalphArgs(short)).toMatchObject(long);
  });

  it('a switch row takes its key in both directions (--no-NAME sets it off)', () => {
    for (const flag of RALPH_FLAGS.filter((f) => f.key !== undefined && CONFIG_SCHEMA[f.key].type === 'bool')) {
      expect(parseRalphArgs([`--${flag.name}`]).flags, flag.name).toEqual({ [flag.key!]: true });
      expect(parseRalphArgs([`--no-${flag.name}`]).flags, flag.name).toEqual({ [flag.key!]: false });
    }
  });

  it('a row takes a value exactly when its key is not a switch', () => {
    for (const flag of RALPH_FLAGS.filter((f) => f.key !== undefined)) {
      expect(flag.arg === undefined, flag.name).toBe(CONFIG_SCHEMA[flag.key!].type === 'bool');
    }
  });
});

describe('bounded flags refuse a value past their key bounds, naming the flag', () => {
  const bounded = RALPH_FLAGS.filter((flag) => flag.key !== undefined && ['int', 'number'].includes(CONFIG_SCHEMA[flag.key].type));

  it('covers every number flag', () => {
    expect(bounded.map((flag) => flag.name).sort()).toEqual(
      ['calls', 'comment-interval', 'delay', 'max-cost', 'max-loops', 'max-run-minutes', 'parallel', 'session-expiry', 'timeout'].sort(),
    );
  });

  it.each(bounded.map((flag) => [flag.name, flag.key!] as const))('--%s (%s)', (name, key) => {
    const { min, max } = CONFIG_SCHEMA[key];
    expect(max, 'every number key has a maximum').toBeDefined();
    // Both ends of the range are accepted ...
    expect(parseRalphArgs([`--${name}`, String(min)]).flags[key]).toBe(min);
    expect(parseRalphArgs([`--${name}`, String(max)]).flags[key]).toBe(max);
    // ... and one past either end is refused, the message naming the flag.
    expect(parseError([`--${name}`, String(max! + 1)])).toMatch(new RegExp(`^--${name}\\b`));
    expect(parseError([`--${name}`, String(min! - 1)])).toMatch(new RegExp(`^--${name}\\b`));
    expect(parseError([`--${name}`, 'lots'])).toMatch(new RegExp(`^--${name}\\b`));
  });

  it.each([
    [['--timeout', '0'], '--timeout: expected a whole number from 1 to 120, got "0"'],
    [['--timeout', '121'], '--timeout: expected a whole number from 1 to 120, got "121"'],
    [['--calls', 'ten'], '--calls: expected a whole number from 1 to 100000, got "ten"'],
    [['--calls', '99999999999999999999'], '--calls: expected a whole number from 1 to 100000, got "99999999999999999999"'],
    [['--max-loops', '-1'], '--max-loops: expected a whole number from 0 to 1000000, got "-1"'],
    [['--max-cost', '2000000'], '--max-cost: expected a number from 0 to 1000000, got "2000000"'],
    [['--parallel', '17'], '--parallel: expected a whole number from 1 to 16, got "17"'],
    [['--output-format', 'xml'], "--output-format must be 'json' or 'text'"],
    [['--parallel-land', 'push'], "--parallel-land must be 'merge' or 'pr'"],
    [['--agent', 'cursor'], '--agent must be one of claude, codex, gemini, opencode, got "cursor"'],
    [['--fallback-agent', 'codex,cursor'], '--fallback-agent must be one of claude, codex, gemini, opencode, got "cursor"'],
    [['--allowed-tools', 'Read,Hack'], "Invalid tool in --allowed-tools: 'Hack'"],
    [['--github-issue', ' '], '--github-issue requires an issue reference (N, #N, owner/repo#N or an issue URL)'],
    [['--add-label', 'a', '--add-label'], '--add-label requires a label'],
    [['--sandbox', ''], '--sandbox requires a provider. Supported: docker, bwrap'],
    [['--sandbox-memory', '1g'], '--sandbox-memory requires --sandbox docker'],
    [['--sandbox', 'bwrap', '--sandbox-cpus', '2'], '--sandbox-cpus applies to --sandbox docker only'],
    [['--sandbox', 'docker', '--sandbox-memory', 'lots'], "--sandbox-memory: invalid sandbox memory limit 'lots' (expected e.g. 4g, 512m)"],
    [['--montor', '-vx'], 'Unknown option: --montor (did you mean --monitor?), -x'],
    [['status'], 'Unknown argument: status (ralph takes options only; did you mean --status?)'],
    [['--sync-include', 'src'], '--sync-include is not supported by this version of ralph'],
  ])('ralph %j: %s (the Bash tool message or the key range)', (argv, message) => {
    expect(parseError(argv)).toBe(message);
  });
});

describe('a number given by flag and by .ralphrc passes the same check', () => {
  const numberFlags = RALPH_FLAGS.filter((flag) => flag.key !== undefined && ['int', 'number'].includes(CONFIG_SCHEMA[flag.key].type));
  /** What .ralphrc makes of `raw` for `key`: the value, or the problem after `.ralphrc:1 KEY: `. */
  const fromRalphrc = (key: ConfigKey, raw: string): string | number => {
    const readFile = (path: string) => (path === '/p/.ralphrc' ? `${key}="${raw}"\n` : undefined);
    try {
      return loadConfig({ projectDir: '/p', homeDir: '/h', env: {}, readFile }).config[key] as number;
    } catch (error) {
      const detail = isRalphError(error) ? (error.details[0] ?? '') : String(error);
      return detail.replace(`- .ralphrc:1 ${key}: `, '');
    }
  };
  const fromFlag = (name: string, key: ConfigKey, raw: string): string | number => {
    try {
      return parseRalphArgs([`--${name}`, raw]).flags[key] as number;
    } catch (error) {
      return (error as Error).message.replace(`--${name}: `, '');
    }
  };
  const values = (key: ConfigKey) => [
    'ten',
    '',
    '-1',
    '+5',
    ' 5 ',
    '1e1',
    '0x10',
    '.5',
    '5.',
    '2.50',
    '0',
    '1',
    String(CONFIG_SCHEMA[key].max),
    String(CONFIG_SCHEMA[key].max! + 1),
  ];

  it.each(numberFlags.map((flag) => [flag.name, flag.key!] as const))('--%s and %s: same values accepted, same words for the rest', (name, key) => {
    for (const raw of values(key)) expect(fromFlag(name, key, raw), `${JSON.stringify(raw)}`).toEqual(fromRalphrc(key, raw));
  });
});

/** The help text of each flag (its wrapped lines joined), by long name. */
function helpEntries(help: string): Map<string, string> {
  const entries = new Map<string, string>();
  let current: string | undefined;
  for (const line of help.split('\n')) {
    const start = /^ {2}(?:-[a-zA-Z], | {4})--([a-z-]+)(.*)$/.exec(line);
    if (start) entries.set((current = start[1]!), start[2]!.trim());
    else if (current !== undefined && /^ {6,}\S/.test(line)) entries.set(current, `${entries.get(current)} ${line.trim()}`);
    else current = undefined;
  }
  return entries;
}

describe('ralph --help, rendered from the table', () => {
  const entries = helpEntries(renderRalphHelp());

  it('shows every flag once, with its alias and value', () => {
    expect([...entries.keys()].sort()).toEqual(RALPH_FLAGS.map((flag) => flag.name).sort());
    const help = renderRalphHelp();
    for (const flag of RALPH_FLAGS) expect(help).toContain(`${flag.alias ? `-${flag.alias}, ` : '    '}--${flag.name}${flag.arg ? ` ${flag.arg}` : ''}`);
  });

  it("shows each value flag's default as the schema has it (unless empty, or the long tool list)", () => {
    const defaults = defaultConfig();
    for (const flag of RALPH_FLAGS.filter((f) => f.arg !== undefined && f.key !== undefined)) {
      const value = defaults[flag.key!];
      const empty = value === '' || (Array.isArray(value) && value.length === 0);
      const text = entries.get(flag.name)!;
      if (empty || flag.name === 'allowed-tools') expect(text, flag.name).not.toContain('(default:');
      else expect(text, flag.name).toMatch(new RegExp(`\\(default: ${String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[ ;)]`));
    }
    expect(entries.get('continue')).toContain('(default: on; --no-continue turns it off)');
    expect(entries.get('timeout')).toContain(`in minutes, 1-${CONFIG_SCHEMA.CLAUDE_TIMEOUT_MINUTES.max} (default: 15)`);
  });
});

describe('ralph --help grouped by task', () => {
  it('has one section per task, the first for getting started, and the Bash-compatibility notes once, at the end', () => {
    const help = renderRalphHelp();
    const headings = help.split('\n').filter((line) => /^[A-Z][\w -]*:$/.test(line));
    expect(headings).toEqual([
      'Getting started:',
      'Running the loop:',
      'Limits and budgets:',
      'The agent:',
      'Sandbox:',
      'Status and recovery:',
      'Issue queue:',
      'GitHub issue lifecycle:',
      'Files:',
      'Examples:',
      'Compatibility with the Bash tool:',
    ]);
    expect(help).not.toMatch(/Modern CLI Options|Beyond the Bash version/);
    const notes = help.slice(help.indexOf('Compatibility with the Bash tool:'));
    for (const flag of RALPH_FLAGS.filter((f) => f.ours)) expect(notes).toContain(`--${flag.name}`);
    expect(notes).not.toContain('--calls');
    expect(help.slice(help.indexOf('Getting started:'), help.indexOf('Running the loop:'))).toMatch(/--demo[\s\S]*--doctor/);
  });
});

describe('--accept-item', () => {
  it('refuses a blank item, naming what it takes', () => {
    expect(parseError(['--accept-item', '  '])).toBe('--accept-item requires an item: its number in ralph --status, or its text');
  });
});
