import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type LoadConfigOptions } from '../../../lib/config/load-config.js';
import { DEFAULT_ALLOWED_TOOLS } from '../../../lib/config/schema.js';
import { RalphError } from '../../../lib/errors.js';

let root: string;
let projectDir: string;
let homeDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ralph-config-'));
  projectDir = join(root, 'project');
  homeDir = join(root, 'home');
  mkdirSync(projectDir);
  mkdirSync(homeDir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function load(files: { project?: string; home?: string }, options: Partial<LoadConfigOptions> = {}) {
  if (files.project !== undefined) writeFileSync(join(projectDir, '.ralphrc'), files.project);
  if (files.home !== undefined) writeFileSync(join(homeDir, '.ralphrc'), files.home);
  return loadConfig({ projectDir, homeDir, env: {}, ...options });
}

function loadError(files: { project?: string; home?: string }, options: Partial<LoadConfigOptions> = {}): RalphError {
  try {
    load(files, options);
  } catch (error) {
    if (error instanceof RalphError) return error;
    throw error;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig precedence: flag > env > .ralphrc > ~/.ralphrc > default', () => {
  const project = '# project\nMAX_CALLS_PER_HOUR=50\n';
  const env = { MAX_CALLS_PER_HOUR: '70' };

  it('takes the flag over everything', () => {
    const result = load({ project, home: 'MAX_CALLS_PER_HOUR=30\n' }, { env, flags: { MAX_CALLS_PER_HOUR: 90 } });
    expect(result.config.MAX_CALLS_PER_HOUR).toBe(90);
    expect(result.sources.MAX_CALLS_PER_HOUR).toEqual({ kind: 'flag' });
  });

  it('takes env over the files', () => {
    const result = load({ project, home: 'MAX_CALLS_PER_HOUR=30\n' }, { env });
    expect(result.config.MAX_CALLS_PER_HOUR).toBe(70);
    expect(result.sources.MAX_CALLS_PER_HOUR).toEqual({ kind: 'env', detail: 'env MAX_CALLS_PER_HOUR' });
  });

  it('takes the project .ralphrc over ~/.ralphrc, naming the line', () => {
    const result = load({ project, home: 'MAX_CALLS_PER_HOUR=30\nCLAUDE_MODEL=opus\n' });
    expect(result.config.MAX_CALLS_PER_HOUR).toBe(50);
    expect(result.sources.MAX_CALLS_PER_HOUR).toEqual({ kind: 'ralphrc', detail: '.ralphrc:2' });
    expect(result.config.CLAUDE_MODEL).toBe('opus');
    expect(result.sources.CLAUDE_MODEL).toEqual({ kind: 'home-ralphrc', detail: '~/.ralphrc:2' });
  });

  it('falls back to ~/.ralphrc', () => {
    expect(load({ home: 'MAX_CALLS_PER_HOUR=30\n' }).config.MAX_CALLS_PER_HOUR).toBe(30);
  });

  it('falls back to the default without any file', () => {
    const result = load({});
    expect(result.config.MAX_CALLS_PER_HOUR).toBe(100);
    expect(result.sources.MAX_CALLS_PER_HOUR).toEqual({ kind: 'default' });
    expect(result.warnings).toEqual([]);
  });

  it('applies the same rule to every key, including the ones the Bash tool let .ralphrc win', () => {
    const result = load(
      { project: 'CB_NO_PROGRESS_THRESHOLD=9\nDRY_RUN=false\nCLAUDE_TIMEOUT_MINUTES=15\n' },
      { env: { CB_NO_PROGRESS_THRESHOLD: '4', DRY_RUN: 'yes' }, flags: { CLAUDE_TIMEOUT_MINUTES: '30' } },
    );
    expect(result.config).toMatchObject({ CB_NO_PROGRESS_THRESHOLD: 4, DRY_RUN: true, CLAUDE_TIMEOUT_MINUTES: 30 });
  });

  it('treats an empty env variable as unset', () => {
    expect(load({ project }, { env: { MAX_CALLS_PER_HOUR: '' } }).config.MAX_CALLS_PER_HOUR).toBe(50);
  });

  it('reads a file once when the project is the home directory', () => {
    writeFileSync(join(projectDir, '.ralphrc'), 'MY_KEY=1\n');
    const result = loadConfig({ projectDir, homeDir: projectDir, env: {} });
    expect(result.warnings).toHaveLength(1);
  });

  it('reads through an injected readFile', () => {
    const files: Record<string, string> = { [join(projectDir, '.ralphrc')]: 'MAX_LOOPS=4\n' };
    const result = loadConfig({ projectDir: 'nowhere', homeDir: 'nohome', env: {}, readFile: (p) => files[p] });
    expect(result.config.MAX_LOOPS).toBe(0);
    const injected = loadConfig({ projectDir, homeDir, env: {}, readFile: (p) => files[p] });
    expect(injected.config.MAX_LOOPS).toBe(4);
  });
});

describe('loadConfig aliases', () => {
  it('reads the Bash env names', () => {
    const result = load({}, { env: { CLAUDE_ALLOWED_TOOLS: 'Read', CLAUDE_USE_CONTINUE: 'false', CLAUDE_SESSION_EXPIRY_HOURS: '2', VERBOSE_PROGRESS: 'on' } });
    expect(result.config).toMatchObject({ ALLOWED_TOOLS: 'Read', SESSION_CONTINUITY: false, SESSION_EXPIRY_HOURS: 2, RALPH_VERBOSE: true });
    expect(result.sources.SESSION_CONTINUITY).toEqual({ kind: 'env', detail: 'env CLAUDE_USE_CONTINUE' });
  });

  it('reads either name in .ralphrc, the later line winning', () => {
    const result = load({ project: 'SESSION_CONTINUITY=true\nCLAUDE_USE_CONTINUE=no\nVERBOSE_PROGRESS=1\n' });
    expect(result.config.SESSION_CONTINUITY).toBe(false);
    expect(result.sources.SESSION_CONTINUITY).toEqual({ kind: 'ralphrc', detail: '.ralphrc:2' });
    expect(result.config.RALPH_VERBOSE).toBe(true);
    expect(result.warnings).toEqual([]);
  });
});

describe('loadConfig never runs .ralphrc', () => {
  it('creates no file for $(…) or backticks and names the lines', () => {
    const previous = process.cwd();
    process.chdir(projectDir);
    try {
      const result = load({
        project: 'MAX_LOOPS=2\nX=$(touch pwned)\nMAX_CALLS_PER_HOUR=`touch pwned2; echo 5`\nPROJECT_NAME="$(touch pwned3)"\n',
        home: 'Y=`touch pwned4`\n',
      });
      expect(readdirSync(projectDir).sort()).toEqual(['.ralphrc']);
      expect(existsSync(join(homeDir, 'pwned4'))).toBe(false);
      expect(result.config.MAX_LOOPS).toBe(2);
      expect(result.config.MAX_CALLS_PER_HOUR).toBe(100);
      expect(result.config.PROJECT_NAME).toBe('');
      expect(result.warnings.map((w) => `${w.file}:${w.line}`)).toEqual(['~/.ralphrc:1', '.ralphrc:2', '.ralphrc:3', '.ralphrc:4']);
      expect(result.warnings[1]!.message).toMatch(/command substitution/);
      expect(result.warnings[2]!.message).toMatch(/backticks/);
    } finally {
      process.chdir(previous);
    }
  });

  it('warns that RALPH_SHELL_INIT_FILE is ignored', () => {
    writeFileSync(join(projectDir, 'init.sh'), 'touch pwned\n');
    const result = load({ project: 'RALPH_SHELL_INIT_FILE=init.sh\n' });
    expect(existsSync(join(projectDir, 'pwned'))).toBe(false);
    expect(result.warnings).toEqual([
      expect.objectContaining({ file: '.ralphrc', line: 1, key: 'RALPH_SHELL_INIT_FILE', message: expect.stringContaining('ignored') }),
    ]);
  });
});

describe('loadConfig accepted-but-unused keys', () => {
  it('warns once for each one set to something other than its default, naming the key and where', () => {
    const result = load(
      {
        home: 'SANDBOX_E2B_SANDBOX_ID=from-home\n',
        project: '# sandbox\nSANDBOX_E2B_SANDBOX_ID=mine\nCB_OUTPUT_DECLINE_THRESHOLD=50\nSYNC_LARGE_FILE_ACTION=warn\nMAX_LOOPS=4\n',
      },
      { env: { SANDBOX_E2B_TEMPLATE: 'mine' } },
    );
    const unused = 'accepted for compatibility but not used: setting it has no effect';
    expect(result.warnings).toEqual([
      { file: '.ralphrc', line: 3, key: 'CB_OUTPUT_DECLINE_THRESHOLD', message: unused, severity: 'warning' },
      { file: 'env', key: 'SANDBOX_E2B_TEMPLATE', message: unused, severity: 'warning' },
      { file: '.ralphrc', line: 2, key: 'SANDBOX_E2B_SANDBOX_ID', message: unused, severity: 'warning' },
    ]);
    // The value is still read (and shown by ralph --config).
    expect(result.config).toMatchObject({ SANDBOX_E2B_SANDBOX_ID: 'mine', SANDBOX_E2B_TEMPLATE: 'mine', MAX_LOOPS: 4 });
  });

  it('says nothing when they are unset or set to their default, as a Bash .ralphrc does', () => {
    expect(load({ project: 'CB_OUTPUT_DECLINE_THRESHOLD=70\nSANDBOX_E2B_TIMEOUT=3600\n' }).warnings).toEqual([]);
    expect(load({}).warnings).toEqual([]);
  });
});

describe('loadConfig invalid values', () => {
  it('collects every invalid value into one error with line numbers', () => {
    const error = loadError({ project: '# limits\nMAX_CALLS_PER_HOUR=ten\nCLAUDE_TIMEOUT_MINUTES=999\n' });
    expect(error.code).toBe('config_invalid');
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe('Found 2 problems in configuration');
    expect(error.details).toEqual([
      '- .ralphrc:2 MAX_CALLS_PER_HOUR: expected a whole number from 1 to 100000, got "ten"',
      '- .ralphrc:3 CLAUDE_TIMEOUT_MINUTES: expected a whole number from 1 to 120, got "999"',
    ]);
    expect(error.hint).toBe('fix the lines above, or run ralph --config to see effective values');
  });

  it('collects from every layer, even values a higher layer overrides', () => {
    const error = loadError(
      { home: 'CB_AUTO_RESET=perhaps\n', project: 'CLAUDE_OUTPUT_FORMAT=xml\n' },
      { env: { CLAUDE_USE_CONTINUE: 'sometimes' }, flags: { MAX_CALLS_PER_HOUR: 0, CB_AUTO_RESET: true } },
    );
    expect(error.details).toEqual([
      '- ~/.ralphrc:1 CB_AUTO_RESET: expected true or false, got "perhaps"',
      '- .ralphrc:1 CLAUDE_OUTPUT_FORMAT: expected one of json, text, got "xml"',
      '- env CLAUDE_USE_CONTINUE: expected true or false, got "sometimes"',
      '- flag MAX_CALLS_PER_HOUR: expected a whole number from 1 to 100000, got "0"',
    ]);
  });

  it('reports an unreadable file as a problem', () => {
    const error = loadError(
      {},
      {
        readFile: () => {
          throw new Error('EACCES: permission denied');
        },
      },
    );
    expect(error.details).toContain('- ~/.ralphrc: cannot read: EACCES: permission denied');
    expect(error.message).toBe('Found 2 problems in configuration');
  });

  it('says "1 problem" for one', () => {
    expect(loadError({ project: 'MAX_LOOPS=-1\n' }).message).toBe('Found 1 problem in configuration');
  });
});

describe('loadConfig values', () => {
  it('expands ${VAR} from earlier keys and from env, and surfaces unknown keys as warnings', () => {
    const result = load({ project: 'NAME=demo\nPROJECT_NAME="${NAME}-$SUFFIX"\nTEST_COMMAND="npm test # not a comment"\n' }, { env: { SUFFIX: 'ci' } });
    expect(result.config.PROJECT_NAME).toBe('demo-ci');
    expect(result.config.TEST_COMMAND).toBe('npm test # not a comment');
    expect(result.warnings).toEqual([expect.objectContaining({ file: '.ralphrc', line: 1, key: 'NAME', severity: 'warning' })]);
  });

  it('types every value: booleans, numbers, lists, strings', () => {
    const result = load({
      project: 'DRY_RUN=Yes\nMAX_COST_USD=2.5\nOPTIONAL_SECTIONS="Later, Maybe"\nCLAUDE_EFFORT=high\n',
    });
    expect(result.config).toMatchObject({ DRY_RUN: true, MAX_COST_USD: 2.5, OPTIONAL_SECTIONS: ['Later', 'Maybe'], CLAUDE_EFFORT: 'high' });
  });

  it('reads the .ralphrc the Bash tool generates', () => {
    copyFileSync(join(import.meta.dirname, '../../fixtures/ralphrc/bash-generated.ralphrc'), join(projectDir, '.ralphrc'));
    const result = loadConfig({ projectDir, homeDir, env: {} });
    expect(result.warnings).toEqual([]);
    expect(result.config).toMatchObject({
      PROJECT_NAME: 'my-app',
      MAX_CALLS_PER_HOUR: 100,
      CLAUDE_TIMEOUT_MINUTES: 15,
      CLAUDE_OUTPUT_FORMAT: 'json',
      ALLOWED_TOOLS: DEFAULT_ALLOWED_TOOLS,
      SESSION_CONTINUITY: true,
      SESSION_EXPIRY_HOURS: 24,
      CLAUDE_AUTO_UPDATE: true,
      MAX_TOKENS_PER_HOUR: 0,
    });
    expect(result.sources.ALLOWED_TOOLS.detail).toMatch(/^\.ralphrc:\d+$/);
    expect(result.sources.MAX_TOKENS_PER_HOUR).toEqual({ kind: 'default' });
  });
});
