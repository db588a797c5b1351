// The Claude Code update check runs in the background and only informs.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startClaudeUpdateCheck } from '../../../lib/loop/update-check.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fakeNpm(script: string): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'fake-npm-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'npm'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'npm'), 0o755);
  return { ...process.env, PATH: `${dir}${delimiter}${process.env.PATH}` };
}

/** The project's folder, beside the fake's: a program in the call's own folder is never run for ralph. */
function projectDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'update-check-project-'));
  dirs.push(dir);
  return dir;
}

describe('startClaudeUpdateCheck', () => {
  it('tells the user when a newer Claude Code exists, without updating', async () => {
    const logger = createMemoryLogger();
    await startClaudeUpdateCheck({ installedVersion: '2.1.332', processRunner: nodeProcessRunner, logger, env: fakeNpm('echo 2.2.0'), cwd: projectDir() });
    expect(logger.messages()).toEqual(['Claude Code 2.2.0 is available (installed: 2.1.332); update with: npm update -g @anthropic-ai/claude-code']);
  });

  it('says nothing when the installed CLI is current, npm fails, or npm hangs', async () => {
    const logger = createMemoryLogger();
    const run = (script: string, timeoutMs?: number) =>
      startClaudeUpdateCheck({ installedVersion: '2.1.332', processRunner: nodeProcessRunner, logger, env: fakeNpm(script), cwd: projectDir(), timeoutMs });
    await run('echo 2.1.332');
    await run('echo 9.9.9 >&2; exit 1');
    await run('exec sleep 30', 200);
    expect(logger.messages()).toEqual([]);
  });
});
