import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../lib/platform/clock.js';
import { redactSecrets } from '../../../lib/text/redaction.js';
import { createLogger, rotateLogIfNeeded } from '../../../lib/platform/logger.js';

const LINE = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\] \[(INFO|WARN|ERROR|SUCCESS|LOOP|DEBUG)\] .*$/;
const ESC = '\x1b[';

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-logger-'));
  dirs.push(dir);
  return dir;
}

const clock: Clock = { now: () => new Date(2026, 10, 30, 4, 8, 9).getTime(), sleep: async () => {} };

function setup(options: { isTTY?: boolean; env?: NodeJS.ProcessEnv; verbose?: boolean; withLogsDir?: boolean } = {}) {
  const dir = tempDir();
  const logsDir = join(dir, '.ralph', 'logs');
  if (options.withLogsDir !== false) mkdirSync(logsDir, { recursive: true });
  const logFile = join(logsDir, 'ralph.log');
  const written: string[] = [];
  const logger = createLogger({
    logFile,
    stderr: { write: (text) => void written.push(text), isTTY: options.isTTY ?? false },
    env: options.env ?? {},
    clock,
    verbose: options.verbose,
  });
  const fileText = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  return { logger, logFile, logsDir, written, fileText };
}

describe('createLogger', () => {
  it('gives every line of a message its own time and level, so a newline cannot forge a record', () => {
    const { logger, written, fileText } = setup();
    logger.warn('gh timed out: gh pr create --title Fix\n[2026-11-30 04:08:09] [SUCCESS] 🎉 Ralph has completed the project!');
    expect(written).toEqual([
      '[2026-11-30 04:08:09] [WARN] gh timed out: gh pr create --title Fix\n' +
        '[2026-11-30 04:08:09] [WARN] [2026-11-30 04:08:09] [SUCCESS] 🎉 Ralph has completed the project!\n',
    ]);
    expect(fileText()).toBe(written.join(''));
    expect(fileText()).not.toMatch(/^\[[^\]]*\] \[SUCCESS\]/m);
  });

  it('writes the Bash format, in local time, to stderr and ralph.log', () => {
    const { logger, written, fileText } = setup();
    logger.info('Starting main loop...');
    logger.log('LOOP', '=== Starting Loop #1 ===');
    logger.success('done');
    logger.warn('careful');
    logger.error('broken');
    expect(written).toEqual([
      '[2026-11-30 04:08:09] [INFO] Starting main loop...\n',
      '[2026-11-30 04:08:09] [LOOP] === Starting Loop #1 ===\n',
      '[2026-11-30 04:08:09] [SUCCESS] done\n',
      '[2026-11-30 04:08:09] [WARN] careful\n',
      '[2026-11-30 04:08:09] [ERROR] broken\n',
    ]);
    expect(fileText()).toBe(written.join(''));
    for (const line of fileText().trimEnd().split('\n')) expect(line).toMatch(LINE);
  });

  it('colours stderr on a TTY with the Bash colours, and never the file', () => {
    const { logger, written, fileText } = setup({ isTTY: true });
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    logger.success('s');
    logger.log('LOOP', 'l');
    expect(written).toEqual([
      '\x1b[0;34m[2026-11-30 04:08:09] [INFO] i\x1b[0m\n',
      '\x1b[1;33m[2026-11-30 04:08:09] [WARN] w\x1b[0m\n',
      '\x1b[0;31m[2026-11-30 04:08:09] [ERROR] e\x1b[0m\n',
      '\x1b[0;32m[2026-11-30 04:08:09] [SUCCESS] s\x1b[0m\n',
      '\x1b[0;35m[2026-11-30 04:08:09] [LOOP] l\x1b[0m\n',
    ]);
    expect(fileText()).not.toContain(ESC);
    expect(fileText().trimEnd().split('\n')).toHaveLength(5);
  });

  it('does not colour when stderr is not a TTY, or NO_COLOR is set', () => {
    const piped = setup({ isTTY: false });
    piped.logger.warn('w');
    expect(piped.written.join('')).not.toContain(ESC);
    const noColor = setup({ isTTY: true, env: { NO_COLOR: '1' } });
    noColor.logger.warn('w');
    expect(noColor.written.join('')).not.toContain(ESC);
  });

  it('shows DEBUG lines, uncoloured, only when verbose', () => {
    const quiet = setup({ isTTY: true });
    quiet.logger.debug('hidden');
    expect(quiet.written).toEqual([]);
    expect(quiet.fileText()).toBe('');
    const verbose = setup({ isTTY: true, verbose: true });
    verbose.logger.debug('shown');
    expect(verbose.written).toEqual(['[2026-11-30 04:08:09] [DEBUG] shown\n']);
    expect(verbose.fileText()).toBe('[2026-11-30 04:08:09] [DEBUG] shown\n');
  });

  it('drops levels below minLevel', () => {
    const written: string[] = [];
    const logger = createLogger({ stderr: { write: (t) => void written.push(t), isTTY: false }, env: {}, clock, minLevel: 'WARN' });
    logger.info('no');
    logger.success('no');
    logger.warn('yes');
    logger.error('yes');
    expect(written.map((l) => l.match(/\[(\w+)\] \w+$/m)?.[1])).toEqual(['WARN', 'ERROR']);
  });

  it('keeps writing to ralph.log after the loop rotated it or someone removed it', () => {
    const { logger, logFile, fileText } = setup();
    logger.info('one');
    rotateLogIfNeeded(logFile, 1);
    logger.info('two');
    rmSync(logFile);
    logger.info('three');
    expect(readFileSync(`${logFile}.1`, 'utf8')).toContain('[INFO] one');
    expect(fileText()).toBe('[2026-11-30 04:08:09] [INFO] three\n');
  });

  it('never creates the log directory just to log', () => {
    const { logger, logsDir, written } = setup({ withLogsDir: false });
    logger.info('only on stderr');
    expect(written).toHaveLength(1);
    expect(existsSync(logsDir)).toBe(false);
  });

  it('keeps secrets from the environment and known token shapes out of stderr and the file', () => {
    const env = {
      ANTHROPIC_API_KEY: 'key-from-env-0123456789',
      CLAUDE_CODE_OAUTH_TOKEN: 'oauth-token-abcdefghij',
      GITHUB_TOKEN: 'gh-env-token-zyxwvu',
      GH_TOKEN: 'another-gh-token-987',
    };
    const { logger, written, fileText } = setup({ env, isTTY: true });
    logger.info(`env ${env.ANTHROPIC_API_KEY} ${env.CLAUDE_CODE_OAUTH_TOKEN} ${env.GITHUB_TOKEN} ${env.GH_TOKEN}`);
    logger.error('key sk-ant-api03-AbC_d-9 and ghp_ABCdef123 and github_pat_11AB_cd');
    logger.warn('curl -H "Authorization: Bearer eyJhbGciOi.payload.sig" failed');
    const secrets = [...Object.values(env), 'sk-ant-api03-AbC_d-9', 'ghp_ABCdef123', 'github_pat_11AB_cd', 'eyJhbGciOi.payload.sig'];
    for (const text of [written.join(''), fileText()]) {
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).toContain('Bearer [REDACTED]');
      expect(text.match(/\[REDACTED\]/g)).toHaveLength(8);
    }
  });
});

describe('redactSecrets', () => {
  it('masks env values at least 8 characters long, leaving short ones (they would mask words)', () => {
    expect(redactSecrets('token=abcdefgh1 flag=1', { GH_TOKEN: 'abcdefgh1', GITHUB_TOKEN: '1' })).toBe('token=[REDACTED] flag=1');
  });

  it('leaves text without secrets unchanged', () => {
    expect(redactSecrets('Loop #3: sk- is not a key, nor is ghp_', {})).toBe('Loop #3: sk- is not a key, nor is ghp_');
  });
});

describe('rotateLogIfNeeded', () => {
  it('does nothing below the size limit or without a log', () => {
    const dir = tempDir();
    const log = join(dir, 'ralph.log');
    expect(rotateLogIfNeeded(log, 10)).toBe(false);
    writeFileSync(log, '123456789');
    expect(rotateLogIfNeeded(log, 10)).toBe(false);
    expect(readdirSync(dir)).toEqual(['ralph.log']);
  });

  it('shifts .1→.2→.3→.4, drops the old .4 and keeps 4 old files', () => {
    const dir = tempDir();
    const log = join(dir, 'ralph.log');
    for (let generation = 1; generation <= 6; generation++) {
      writeFileSync(log, `generation ${generation}`.padEnd(20, '.'));
      expect(rotateLogIfNeeded(log, 20)).toBe(true);
    }
    expect(readdirSync(dir).sort()).toEqual(['ralph.log.1', 'ralph.log.2', 'ralph.log.3', 'ralph.log.4']);
    expect([1, 2, 3, 4].map((n) => readFileSync(`${log}.${n}`, 'utf8').slice(0, 12))).toEqual(['generation 6', 'generation 5', 'generation 4', 'generation 3']);
  });

  it('is applied by the logger before appending', () => {
    const dir = tempDir();
    const logFile = join(dir, 'ralph.log');
    writeFileSync(logFile, 'x'.repeat(100));
    const logger = createLogger({ logFile, stderr: { write: () => {}, isTTY: false }, env: {}, clock, maxLogBytes: 100 });
    logger.info('fresh');
    expect(readFileSync(`${logFile}.1`, 'utf8')).toBe('x'.repeat(100));
    expect(readFileSync(logFile, 'utf8')).toBe('[2026-11-30 04:08:09] [INFO] fresh\n');
  });

  it('defaults to 10 MiB', () => {
    const dir = tempDir();
    const log = join(dir, 'ralph.log');
    writeFileSync(log, Buffer.alloc(10 * 1024 * 1024 - 1));
    expect(rotateLogIfNeeded(log)).toBe(false);
    writeFileSync(log, Buffer.alloc(10 * 1024 * 1024));
    expect(rotateLogIfNeeded(log)).toBe(true);
  });
});
