// progress.json while the agent works: the tools of one stdout chunk give one write, with the
// last of them, at the end of the turn; a write still due when the call ends comes before
// whatever the loop writes next.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentDisplay } from '../../../lib/agent-run/agent-display.js';
import type { StatusWriter } from '../../../lib/loop/status-writer.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function display(): { display: AgentDisplay; written: Array<Record<string, unknown>> } {
  dir = mkdtempSync(join(tmpdir(), 'ralph-display-'));
  mkdirSync(join(dir, '.ralph'));
  const written: Array<Record<string, unknown>> = [];
  const status = { progress: (fields: Record<string, unknown>) => written.push(fields) } as unknown as StatusWriter;
  const quiet = { write() {}, isTTY: false, columns: 100 };
  const d = new AgentDisplay({ paths: ralphPaths(dir), clock: fakeClock(), stdout: quiet, live: false, showToolArgs: false, status, redact: (t) => t });
  return { display: d, written };
}

describe('AgentDisplay progress', () => {
  it('writes the tools of one chunk once, with the last tool, at the end of the turn', async () => {
    const { display: d, written } = display();
    d.start(1, 'Claude Code');
    written.length = 0;
    d.activity({ tool: 'Read: a.ts' });
    d.activity({ tool: 'Edit: a.ts' });
    d.activity({ text: 'done editing\n', tool: 'Bash: npm test' });
    await Promise.resolve();
    expect(written).toEqual([expect.objectContaining({ status: 'executing', lastOutput: 'Bash: npm test' })]);
    d.activity({ tool: 'Read: b.ts' });
    await Promise.resolve();
    expect(written.map((w) => w.lastOutput)).toEqual(['Bash: npm test', 'Read: b.ts']);
  });

  it('writes a due progress when the call ends, before the loop writes its own', () => {
    const { display: d, written } = display();
    d.start(1, 'Claude Code');
    written.length = 0;
    d.activity({ tool: 'Write: c.ts' });
    d.stop();
    expect(written).toEqual([expect.objectContaining({ lastOutput: 'Write: c.ts' })]);
  });
});
