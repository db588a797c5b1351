// capTranscript keeps the first and last half of the bytes, cut at line ends, with a marker.

import { describe, expect, it } from 'vitest';
import { capTranscript, type TranscriptLog } from '../../../lib/agent-run/redacting-log.js';

function memoryLog(): TranscriptLog & { text(): string } {
  const parts: Buffer[] = [];
  return { write: (chunk) => void parts.push(Buffer.from(chunk)), close: async () => undefined, text: () => Buffer.concat(parts).toString('utf8') };
}

describe('capTranscript', () => {
  it('passes output under the cap through unchanged', async () => {
    const log = memoryLog();
    const capped = capTranscript(log, 1000);
    capped.write(Buffer.from('one\ntwo\n'));
    await capped.close();
    expect(log.text()).toBe('one\ntwo\n');
  });

  it('keeps the head and the tail of a flood, whole lines, with the count of cut bytes', async () => {
    const log = memoryLog();
    const capped = capTranscript(log, 200);
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, '0')}\n`);
    for (const line of lines) capped.write(Buffer.from(line));
    await capped.close();
    const text = log.text();
    const marker = /\n\[ralph: (\d+) bytes of output cut here; TRANSCRIPT_MAX_BYTES keeps the first and last 100 bytes\]\n/.exec(text);
    expect(marker).not.toBeNull();
    const [head, tail] = text.split(marker![0]);
    expect(lines.join('').startsWith(head!)).toBe(true);
    expect(lines.join('').endsWith(tail!)).toBe(true);
    expect(head!.length + tail!.length + Number(marker![1])).toBe(lines.join('').length);
    expect(head!.length).toBeLessThanOrEqual(100);
    expect(tail!.length).toBeLessThanOrEqual(100);
    expect(tail!.endsWith('line 0999\n')).toBe(true);
  });
});
