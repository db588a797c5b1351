// How the agent is invoked and watched: the exact argv, the prompt on stdin (a 300 KiB prompt
// arrives intact), a multi-word CLAUDE_CODE_CMD, --live output with tool lines, live.log,
// per-call output and stderr logs, and status/progress files while a call runs.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { FAKE_CLAUDE_NODE_PROGRAM } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC, loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';
import { loopContextIn } from '../verify-loop/verify-loop-fixture.js';

const OPEN_PLAN = { '.ralph/fix_plan.md': '- [ ] build it\n' };

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

function setup(scenario: FakeScenario, files: Record<string, string> = {}): LoopProject {
  current = loopProject(scenario, { files: { ...OPEN_PLAN, ...files } });
  return current;
}

describe('agent invocation', () => {
  it('passes the Bash-compatible argv: -p, stream-json with --verbose, model, effort, allowed tools last', async () => {
    const p = setup({ calls: [{ writeFiles: { 'a.txt': 'a' } }] });
    writeFileSync(p.project.path('.ralphrc'), `${FAST_LOOP_RC}CLAUDE_MODEL=opus\nCLAUDE_EFFORT=high\nALLOWED_TOOLS="Read,Edit,Bash(git commit *)"\n`);
    await p.run({ MAX_LOOPS: 1 });
    const [run] = p.fake.runs();
    const argv = run!.argv;
    expect(argv.slice(0, 4)).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
    expect(argv.slice(argv.indexOf('--model'), argv.indexOf('--model') + 2)).toEqual(['--model', 'opus']);
    expect(argv.slice(argv.indexOf('--effort'), argv.indexOf('--effort') + 2)).toEqual(['--effort', 'high']);
    expect(argv.slice(-4)).toEqual(['--allowedTools', 'Read', 'Edit', 'Bash(git commit *)']);
    expect(argv).not.toContain('--dangerously-skip-permissions');
    expect(argv).not.toContain('--append-system-prompt');
    expect(loopContextIn(run!.stdin)).toMatch(/^Loop #1\. Remaining tasks: 1\./);
  });

  it('sends a 300 KiB prompt intact on stdin', async () => {
    const big = `# Task\n${'x'.repeat(300 * 1024)}\nEND-OF-PROMPT\n`;
    const p = setup({ calls: [{ writeFiles: { 'a.txt': 'a' } }] }, { '.ralph/PROMPT.md': big });
    await p.run({ MAX_LOOPS: 1 });
    const [run] = p.fake.runs();
    expect(run!.stdin!.startsWith(big)).toBe(true);
    expect(run!.argv.join(' ')).not.toContain('END-OF-PROMPT');
  });

  it('runs a multi-word CLAUDE_CODE_CMD', async () => {
    const p = setup({ calls: [{ writeFiles: { 'a.txt': 'a' } }] });
    writeFileSync(p.project.path('.ralphrc'), `${FAST_LOOP_RC}CLAUDE_CODE_CMD="'${process.execPath}' '${FAKE_CLAUDE_NODE_PROGRAM}'"\n`);
    const result = await p.run({ MAX_LOOPS: 1 });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(1);
  });

  it('--live shows the stream with tool lines; live.log keeps it; logs are per call', async () => {
    const p = setup({
      calls: [
        {
          steps: [
            { text: 'Reading the notes.' },
            { tool: 'Bash', input: { command: 'ls -1', description: 'List' }, stdout: 'a.txt' },
            { text: 'Done for now.' },
          ],
          writeFiles: { 'a.txt': 'a' },
          stderrNoise: true,
        },
      ],
    });
    const result = await p.run({ MAX_LOOPS: 1, LIVE_OUTPUT: true, LIVE_SHOW_TOOL_ARGS: true });
    expect(result.stdout.text).toContain('Reading the notes.');
    expect(result.stdout.text).toContain('⚡ [Bash] ls -1');
    const live = readFileSync(p.project.path('.ralph/live.log'), 'utf8');
    expect(live).toMatch(/^=== Loop #1 - /);
    expect(live).toContain('⚡ [Bash] ls -1');
    // One line per tool, not double-spaced after the text line before it.
    expect(live).toMatch(/Reading the notes\.\n⚡ \[Bash\] ls -1\n/);
    expect(live).not.toContain('\n\n');
    const logs = readdirSync(p.project.path('.ralph/logs'));
    const output = logs.find((f) => /^claude_output_\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d\.log$/.test(f));
    const stderr = logs.find((f) => /^claude_stderr_\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d\.log$/.test(f));
    expect(output).toBeDefined();
    expect(stderr).toBeDefined();
    expect(readFileSync(p.project.path(`.ralph/logs/${output}`), 'utf8')).toContain('"type":"result"');
    expect(readFileSync(p.project.path(`.ralph/logs/${stderr}`), 'utf8').length).toBeGreaterThan(0);
  });

  it('writes no stderr log for an agent run that printed nothing on stderr', async () => {
    const p = setup({ calls: [{ resultText: 'quiet run', writeFiles: { 'a.txt': 'a' } }] });
    await p.run({ MAX_LOOPS: 1 });
    const logs = readdirSync(p.project.path('.ralph/logs'));
    expect(logs.some((f) => f.startsWith('claude_output_'))).toBe(true);
    expect(logs.filter((f) => f.startsWith('claude_stderr_'))).toEqual([]);
  });

  it('without --live, tool lines stay off the terminal', async () => {
    const p = setup({ calls: [{ steps: [{ tool: 'Bash', input: { command: 'ls -1' }, stdout: 'x' }], writeFiles: { 'a.txt': 'a' } }] });
    const result = await p.run({ MAX_LOOPS: 1 });
    expect(result.stdout.text).not.toContain('⚡');
  });

  it('keeps status.json and progress.json current while the agent works', async () => {
    const p = setup({ calls: [{ writeFiles: { 'a.txt': 'a' } }] });
    const events = new LoopEvents();
    let during: Record<string, unknown> | undefined;
    let progress: Record<string, unknown> | undefined;
    events.on('agent:started', () => {
      during = p.status();
      progress = p.readJson('.ralph/progress.json') as Record<string, unknown>;
    });
    await p.run({ MAX_LOOPS: 1 }, { events });
    expect(during).toMatchObject({ loop_count: 1, calls_made_this_hour: 1, max_calls_per_hour: 100, last_action: 'executing', status: 'running' });
    expect(during!.next_reset).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(progress).toMatchObject({ status: 'executing' });
    expect(p.readJson('.ralph/progress.json')).toMatchObject({ status: 'completed' });
  });
});
