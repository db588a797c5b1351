// The agent killed mid-stream (SIGKILL: no result line, maybe half a line): the loop records a
// failed iteration, keeps every state file readable, leaves no agent process behind and goes on
// to the next loop, which works.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loopProject, type LoopProject } from '../helpers/loop-harness.js';
import { isProcessRunning } from '../helpers/process-state.js';
import { checkStateFiles } from './fast-agent.js';

const OPEN_PLAN = { '.ralph/fix_plan.md': '- [ ] keep going\n' };
const work = (n: number) => ({ writeFiles: { [`f${n}.txt`]: String(n) }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });
const STEPS = [{ text: 'Reading the notes.' }, { tool: 'Read', input: { file_path: 'notes.txt' } }, { text: 'Now editing.' }];

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

function metricsOf(p: LoopProject): Array<Record<string, unknown>> {
  return readFileSync(p.project.path('.ralph/logs/metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** The first agent output log, once it holds `ready(text)`. */
async function waitForOutput(p: LoopProject, ready: (text: string) => boolean): Promise<void> {
  const logs = p.project.path('.ralph/logs');
  for (let i = 0; i < 1000; i++) {
    if (existsSync(logs)) {
      const name = readdirSync(logs).find((n) => n.startsWith('claude_output_'));
      if (name && statSync(`${logs}/${name}`).size > 0 && ready(readFileSync(`${logs}/${name}`, 'utf8'))) return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the agent never produced the expected output');
}

describe('agent killed mid-stream', () => {
  it('a SIGKILL after a few lines (no result): failed loop, then the next loop works', async () => {
    const p = (current = loopProject({ calls: [{ steps: STEPS, crash: { afterLines: 3, signal: 'SIGKILL' } }, work(2)] }, { files: OPEN_PLAN }));
    const result = await p.run({ MAX_LOOPS: 2 });
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(3);
    const [killed] = p.fake.runs();
    expect(killed!.crashed).toBe(true);
    expect(metricsOf(p).map((m) => m.success)).toEqual([false, true]);
    expect(result.logs.join('\n')).toMatch(/Claude Code execution failed/);
    expect(checkStateFiles(p.project.dir)).toEqual([]);
    expect(p.status()).toMatchObject({ exit_reason: 'max_loops_reached', loop_count: expect.any(Number) });
  });

  it('kill -9 from outside while a line is half written: failed loop, no process left, then the next loop works', async () => {
    // Each line goes out in three writes 1.5 s apart, so the kill lands inside a line.
    const p = (current = loopProject({ calls: [{ steps: STEPS, chunking: 'split', splitDelayMs: 1500, spawnChild: true }, work(2)] }, { files: OPEN_PLAN }));
    const running = p.run({ MAX_LOOPS: 2 });
    await waitForOutput(p, (text) => !text.endsWith('\n'));
    const [agent] = p.fake.runs();
    process.kill(agent!.pid, 'SIGKILL');
    const result = await running;
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(2);
    expect(metricsOf(p).map((m) => m.success)).toEqual([false, true]);
    for (const pid of [agent!.pid, agent!.childPid].filter((x): x is number => x !== undefined)) {
      expect(isProcessRunning(pid), `pid ${pid}`).toBe(false);
    }
    expect(checkStateFiles(p.project.dir)).toEqual([]);
    // The display started over for loop 2 instead of appending to a torn loop 1.
    expect(readFileSync(p.project.path('.ralph/live.log'), 'utf8')).toMatch(/^=== Loop #2 /);
  });
});
