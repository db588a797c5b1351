// The lock records the agent's group leader as it runs, not as it was spawned: an agent CLI
// started through a launcher (`#!/usr/bin/env node`, an npm shim) replaces itself after the
// spawn, and a ralph taking over the lock proves the group by the executable it finds.

import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trackAgentGroup } from '../../../lib/agent-run/agent-group.js';
import type { AgentGroup } from '../../../lib/state/lock.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

describe('the agent group recorded in the lock', () => {
  it('follows a launcher that replaced itself with the real executable before the first output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-agent-group-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // The launcher waits for a line before it replaces itself, so the spawn is seen as `sh`.
    const launcher = join(dir, 'agent');
    writeFileSync(launcher, `#!/bin/sh\nread go\nexec "$NODE" -e "console.log('ready'); setInterval(() => {}, 1 << 30)"\n`);
    chmodSync(launcher, 0o755);
    const child = spawn(launcher, [], { env: { ...process.env, NODE: process.execPath }, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    cleanups.push(() => child.kill('SIGKILL'));
    const records: AgentGroup[] = [];
    const group = trackAgentGroup({ recordAgent: (g) => records.push(g) });

    group.recordSpawned(child.pid!);
    const spawnedAs = records.at(-1)!.exe;
    const output = new Promise((resolve) => child.stdout.once('data', resolve));
    child.stdin.write('go\n');
    await output;
    group.recordSettled(child.pid!);

    const runningAs = readlinkSync(`/proc/${child.pid}/exe`);
    expect(spawnedAs).not.toBe(runningAs);
    expect(records.at(-1)).toEqual({ pgid: child.pid, startTime: records[0]!.startTime, exe: runningAs });
  });
});
