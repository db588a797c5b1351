import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { readClaudeSessionId, writeClaudeSessionId } from '../../../lib/sessions/claude-session-id.js';
import { fixedClock, useTempDir } from '../state/test-context.js';

const tempDir = useTempDir();

function setup() {
  const dir = tempDir();
  const logger = createMemoryLogger();
  return { dir, path: join(dir, '.claude_session_id'), logger, options: { logger, clock: fixedClock() } };
}

describe('.claude_session_id', () => {
  it('writes the JSON form with mode 600 and reads it back', () => {
    const { path, options } = setup();
    writeClaudeSessionId(path, 'a0000000-0000-4000-8000-000000000002', options);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      session_id: 'a0000000-0000-4000-8000-000000000002',
      timestamp: '2026-11-30T04:48:19+00:00',
    });
    expect(readClaudeSessionId(path, options)).toEqual({
      sessionId: 'a0000000-0000-4000-8000-000000000002',
      timestamp: '2026-11-30T04:48:19+00:00',
      format: 'json',
      mtimeMs: statSync(path).mtimeMs,
      agent: 'claude',
    });
  });

  it("names the agent of a session other than Claude's, with its running usage; a Claude session stays as the Bash tool wrote it", () => {
    const { path, options } = setup();
    const usage = { input: 200, output: 60, cacheRead: 1000, cacheCreation: 0 };
    writeClaudeSessionId(path, '01a23199-8da2-76b3-b1de-22d0316795ba', options, { agent: 'codex', usage });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ session_id: '01a23199-8da2-76b3-b1de-22d0316795ba', agent: 'codex', usage });
    expect(readClaudeSessionId(path, options)).toMatchObject({ sessionId: '01a23199-8da2-76b3-b1de-22d0316795ba', agent: 'codex', usage });
    writeClaudeSessionId(path, 'a0000000-0000-4000-8000-000000000002', options, { agent: 'claude' });
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')))).toEqual(['session_id', 'timestamp']);
  });

  it('reads the legacy plain-text id (trailing newline or CR tolerated)', () => {
    const { path, options } = setup();
    writeFileSync(path, 'sess_legacy-123\r\n');
    expect(readClaudeSessionId(path, options)).toMatchObject({ sessionId: 'sess_legacy-123', format: 'legacy' });
    expect(readClaudeSessionId(path, options)?.timestamp).toBeUndefined();
  });

  it('is undefined when there is no file or it is empty', () => {
    const { path, logger, options } = setup();
    expect(readClaudeSessionId(path, options)).toBeUndefined();
    writeFileSync(path, '\n');
    expect(readClaudeSessionId(path, options)).toBeUndefined();
    expect(logger.entries).toEqual([]);
  });

  it.each([
    ['a legacy id with unsafe characters', 'abc; rm -rf /'],
    ['JSON without a session_id', '{"timestamp": "2026-11-30T04:48:54+00:00"}'],
    ['JSON with an empty session_id', '{"session_id": "  "}'],
    ['broken JSON', '{"session_id": "abc'],
  ])('sets aside %s with a warning', (_label, text) => {
    const { dir, path, logger, options } = setup();
    writeFileSync(path, text);
    expect(readClaudeSessionId(path, options)).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^\.claude_session_id\.corrupt-\d{8}T\d{6}$/)]);
    expect(logger.messages('WARN')).toEqual([expect.stringContaining('.claude_session_id')]);
  });
});
