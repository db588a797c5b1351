import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTranscriptLog, writablePrefixLength } from '../../../lib/agent-run/redacting-log.js';
import { createRedactor } from '../../../lib/text/redaction.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function logPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-transcript-'));
  dirs.push(dir);
  return join(dir, 'claude_output.log');
}

describe('openTranscriptLog', () => {
  it('redacts a secret that arrives split across chunks, even mid-character, and keeps the rest byte for byte', async () => {
    const path = logPath();
    const secret = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';
    const text = `{"type":"assistant","text":"ü ${secret} ü"}\n{"type":"result"}\npartial ${secret}`;
    const bytes = Buffer.from(text, 'utf8');
    const log = openTranscriptLog(path, createRedactor({}));
    // One byte at a time: every token and every multi-byte character is split.
    for (let i = 0; i < bytes.length; i++) log.write(bytes.subarray(i, i + 1));
    await log.close();
    expect(readFileSync(path, 'utf8')).toBe(text.split(secret).join('[REDACTED]'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('flushes a line longer than its buffer in pieces, still finding the secret', async () => {
    const path = logPath();
    const secret = 'value-of-my-token-123';
    // Written 997 characters at a time, the buffer first overflows with the secret complete
    // 4096 characters before its end: a cut right there would split the secret in two.
    const long = `${'x '.repeat(129_052)}${secret} ${'y'.repeat(10_000)}`;
    const log = openTranscriptLog(path, createRedactor({ MY_TOKEN: secret }));
    for (let i = 0; i < long.length; i += 997) log.write(Buffer.from(long.slice(i, i + 997)));
    await log.close();
    const written = readFileSync(path, 'utf8');
    expect(written).not.toContain(secret);
    expect(written.length).toBe(long.length - secret.length + '[REDACTED]'.length);
  });
});

describe('writablePrefixLength', () => {
  it('for stream-json: up to the last unescaped quote, so the string still arriving is held back', () => {
    const partial = '{"type":"assistant","text":"a \\"quoted\\" value-of-my';
    expect(partial.slice(0, writablePrefixLength(partial, true))).toBe('{"type":"assistant","text":"');
    expect(writablePrefixLength('{"a":"b\\\\"', true)).toBe('{"a":"b\\\\"'.length);
    expect(writablePrefixLength('no quotes here', true)).toBe(0);
  });

  it('for plain text: nothing until the line ends (or grows too long)', () => {
    expect(writablePrefixLength('{"type":"assistant","text":"partial', false)).toBe(0);
  });
});
