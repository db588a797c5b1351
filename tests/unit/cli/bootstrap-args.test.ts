// The flag tables of ralph-setup, ralph-migrate, ralph-enable and ralph-enable-ci: every row
// parsed (argv → options), the generated error cases, and --help naming every row
// (flag-table-suite.ts); unknown flags named as yargs named them, which scripts read.

import { describe, expect, it } from 'vitest';
import {
  ENABLE_CI_FLAGS,
  ENABLE_FLAGS,
  MIGRATE_FLAGS,
  parseEnableArgs,
  parseEnableCiArgs,
  parseMigrateArgs,
  parseSetupArgs,
  renderEnableCiHelp,
  renderEnableHelp,
  renderMigrateHelp,
  renderSetupHelp,
  SETUP_FLAGS,
} from '../../../lib/cli/bootstrap-args.js';
import { isRalphError } from '../../../lib/errors.js';
import { checkFlagTable, parseError } from './flag-table-suite.js';

describe('the ralph-setup flag table', () => {
  checkFlagTable({
    rows: SETUP_FLAGS,
    parse: parseSetupArgs,
    help: renderSetupHelp(),
    cases: {
      force: [['app', '--force'], { name: 'app', force: true }],
      help: [['--help'], 'help'],
      version: [['--version'], { name: 'my-project' }],
      debug: [['--debug'], { name: 'my-project', force: false }],
    },
  });

  it.each([
    [['--nope'], 'Unknown argument: nope'],
    [['a', 'b'], 'expected one project name, got 2'],
  ])('ralph-setup %j: %s', (argv, message) => {
    expect(parseError(parseSetupArgs, argv)).toBe(message);
  });
});

describe('the ralph-migrate flag table', () => {
  checkFlagTable({
    rows: MIGRATE_FLAGS,
    parse: parseMigrateArgs,
    help: renderMigrateHelp(),
    cases: {
      help: [['-h', '--help'], 'help'],
      version: [['--version'], { dir: '.' }],
      debug: [['old', '--debug'], { dir: 'old' }],
    },
  });
});

describe('the ralph-enable flag table', () => {
  checkFlagTable({
    rows: ENABLE_FLAGS,
    parse: parseEnableArgs,
    help: renderEnableHelp(),
    cases: {
      from: [['--from', 'github'], { from: 'github', label: undefined, limit: 50 }],
      prd: [['--from', 'prd', '--prd', 'docs/prd.md'], { from: 'prd', prd: 'docs/prd.md' }],
      label: [['--label', 'todo'], { label: 'todo' }],
      limit: [['--limit', '0'], { limit: 0 }],
      force: [['--force'], { force: true, skipTasks: false }],
      'skip-tasks': [['--skip-tasks'], { skipTasks: true }],
      'non-interactive': [['--non-interactive'], { nonInteractive: true }],
      help: [['--help'], 'help'],
      version: [['--version'], 'version'],
    },
  });

  it('refuses with exit code 3 and the hint to its help', () => {
    let error: unknown;
    try {
      parseEnableArgs(['--from', 'none']);
    } catch (caught) {
      error = caught;
    }
    expect(isRalphError(error) && [error.message, error.exitCode, error.hint]).toEqual([
      '--from must be one of beads, github, prd, got "none"',
      3,
      'run ralph-enable --help',
    ]);
  });

  it.each([
    [['-v'], 'Unknown argument: v (-v is not a flag of ralph-enable: --version shows its version)'],
    [['--limit', '-1'], '--limit must be a non-negative integer, got "-1"'],
    [['--prd', 'x.md', 'extra'], 'unexpected argument: extra'],
  ])('ralph-enable %j: %s', (argv, message) => {
    expect(parseError(parseEnableArgs, argv)).toBe(message);
  });
});

describe('the ralph-enable-ci flag table', () => {
  checkFlagTable({
    rows: ENABLE_CI_FLAGS,
    parse: parseEnableCiArgs,
    help: renderEnableCiHelp(),
    cases: {
      from: [['--from', 'none'], { from: 'none', label: 'ralph-task', limit: 50, json: false }],
      prd: [['--prd', 'docs/prd.md'], { prd: 'docs/prd.md' }],
      label: [['--label', 'todo'], { label: 'todo' }],
      limit: [['--limit', '7'], { limit: 7 }],
      'project-name': [['--project-name', 'shop'], { projectName: 'shop' }],
      'project-type': [['--project-type', 'python'], { projectType: 'python' }],
      force: [['--force'], { force: true }],
      json: [['--json'], { json: true, jq: undefined }],
      jq: [['--jq', '.success'], { json: true, jq: '.success' }],
      quiet: [['--quiet'], { quiet: true }],
      help: [['--help'], 'help'],
      version: [['--version'], 'version'],
    },
  });

  it.each([
    [['--bogus'], 'Unknown argument: bogus'],
    [['--limit', 'ten'], '--limit must be a non-negative integer, got "ten"'],
    [['--label', ' '], '--label requires a value'],
    [['stray'], 'unexpected argument: stray'],
  ])('ralph-enable-ci %j: %s', (argv, message) => {
    expect(parseError(parseEnableCiArgs, argv)).toBe(message);
  });
});
