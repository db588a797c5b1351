// Bad input is a clear error: a control file that is not a readable text file, or
// a state file that is a directory, stops the real `bin/ralph` with exit 1 and one `Error:` line
// naming the file plus a hint — never an internal error, a hang, or a counted call. An agent
// command that cannot be spawned is not counted as a call either.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

function project(): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
  cleanups.push(() => p.cleanup());
  return p;
}

function tmpDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-outside-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function fake(): FakeClaude {
  const f = withFakeClaude({ defaults: { writeFiles: { 'out.txt': 'work' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } } });
  cleanups.push(() => f.cleanup());
  return f;
}

/** `ralph --max-loops 1`, killed after 20 s if it hangs (a FIFO read blocks for ever). */
function ralph(p: TmpProject, f: FakeClaude, args: string[] = []): Promise<CliResult> {
  return runCli('ralph', ['--max-loops', '1', ...args], {
    cwd: p.dir,
    env: f.env,
    onSpawn: (child) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', () => clearTimeout(timer));
    },
  });
}

const callCount = (p: TmpProject) => (existsSync(p.path('.ralph/.call_count')) ? Number(readFileSync(p.path('.ralph/.call_count'), 'utf8')) : 0);

/** Exit 1, one `Error:` line naming the file with `problem`, a hint, and nothing counted or run. */
function expectClearError(r: CliResult, p: TmpProject, f: FakeClaude, file: string, problem: RegExp): void {
  expect(r.signal).toBeNull();
  expect(r.code).toBe(1);
  const errors = r.stderr.split('\n').filter((line) => line.startsWith('Error:'));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toContain(file);
  expect(errors[0]).toMatch(problem);
  expect(r.stderr).toMatch(/\nhint: \S/);
  expect(r.stderr).not.toContain('internal error');
  expect(f.runs()).toHaveLength(0);
  expect(callCount(p)).toBe(0);
}

describe('bad input is a one-line error naming the file, with no call counted', () => {
  it('a NUL byte in a .ralphrc value', async () => {
    const p = project();
    const f = fake();
    writeFileSync(p.path('.ralphrc'), `${FAST_LOOP_RC}CLAUDE_MODEL=son\u0000net\n`);
    expectClearError(await ralph(p, f), p, f, '.ralphrc', /NUL/);
  });

  it('PROMPT.md that is a directory', async () => {
    const p = project();
    const f = fake();
    rmSync(p.path('.ralph/PROMPT.md'));
    mkdirSync(p.path('.ralph/PROMPT.md'));
    expectClearError(await ralph(p, f), p, f, '.ralph/PROMPT.md', /is a directory/);
  });

  it('status.json that is a directory', async () => {
    const p = project();
    const f = fake();
    mkdirSync(p.path('.ralph/status.json'));
    expectClearError(await ralph(p, f), p, f, '.ralph/status.json', /is a directory/);
  });

  it('an empty PROMPT.md', async () => {
    const p = project();
    const f = fake();
    writeFileSync(p.path('.ralph/PROMPT.md'), '\n  \n');
    expectClearError(await ralph(p, f), p, f, '.ralph/PROMPT.md', /is empty/);
  });

  it('PROMPT.md that is a FIFO (no hang)', async () => {
    const p = project();
    const f = fake();
    rmSync(p.path('.ralph/PROMPT.md'));
    execFileSync('mkfifo', [p.path('.ralph/PROMPT.md')]);
    expectClearError(await ralph(p, f), p, f, '.ralph/PROMPT.md', /FIFO/);
  });

  it('a prompt file that is a device', async () => {
    const p = project();
    const f = fake();
    expectClearError(await ralph(p, f, ['--prompt', '/dev/null']), p, f, '/dev/null', /is a device/);
  });

  it('a --prompt file that does not exist is named as the one given, not as a missing .ralph/PROMPT.md', async () => {
    const p = project();
    const f = fake();
    const r = await ralph(p, f, ['--prompt', 'nope.md']);
    expectClearError(r, p, f, 'nope.md', /not found/);
    // .ralph/PROMPT.md is there: neither the missing-project wording nor its set-up commands apply.
    expect(r.stderr).not.toContain('missing .ralph/PROMPT.md');
    expect(r.stderr).not.toContain('ralph-setup');
    expect(r.stderr).toMatch(/^hint: .*--prompt/m);
  });

  it('PROMPT.md that is a symlink leaving the project', async () => {
    const p = project();
    const f = fake();
    const outside = join(tmpDir(), 'secret.md');
    writeFileSync(outside, "# someone else's file\n");
    rmSync(p.path('.ralph/PROMPT.md'));
    symlinkSync(outside, p.path('.ralph/PROMPT.md'));
    expectClearError(await ralph(p, f), p, f, '.ralph/PROMPT.md', /symlink to .*secret\.md, outside the project/);
  });

  it('a PROMPT.md the agent turns into a FIFO mid-run stops the next loop before its call is counted', async () => {
    const p = project();
    const f = withFakeClaude({
      defaults: {
        steps: [{ tool: 'Bash', input: { command: 'rm .ralph/PROMPT.md && mkfifo .ralph/PROMPT.md' }, exec: true }],
        writeFiles: { 'out.txt': 'work' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
      },
    });
    cleanups.push(() => f.cleanup());
    writeFileSync(p.path('.ralphrc'), `${FAST_LOOP_RC}ALLOWED_TOOLS=Bash\n`);
    const r = await ralph(p, f, ['--max-loops', '3']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter((line) => line.startsWith('Error:'))).toEqual(['Error: .ralph/PROMPT.md is a named pipe (FIFO), not a file']);
    expect(f.runs()).toHaveLength(1);
    expect(callCount(p)).toBe(1);
  });

  it('a FIFO the agent left among the run records, or in place of a run log, does not hang the next run', async () => {
    const p = project();
    const f = fake();
    expect((await ralph(p, f)).signal).toBeNull();
    const sessions = p.path('.ralph/sessions');
    const [attempts] = readdirSync(sessions).filter((name) => name.endsWith('.attempts.jsonl'));
    rmSync(join(sessions, attempts!));
    // Named to sort as the newest record, and the last run's own log: both read when a run starts.
    execFileSync('mkfifo', [join(sessions, 'zzzz.json'), join(sessions, attempts!)]);
    const r = await ralph(p, f);
    expect(r.signal).toBeNull();
    expect(f.runs()).toHaveLength(2);
  });

  it('an agent command that cannot be spawned is not counted as a call', async () => {
    const p = project();
    const f = fake();
    // Answers --version (the startup check), then loses its execute bit: the real call fails with EACCES.
    const agent = join(tmpDir(), 'claude-gone');
    writeFileSync(agent, '#!/bin/sh\nif [ "$1" = "--version" ]; then chmod -x "$0"; echo "2.1.332 (Claude Code)"; exit 0; fi\necho ran\n');
    chmodSync(agent, 0o755);
    writeFileSync(p.path('.ralphrc'), `${FAST_LOOP_RC}CLAUDE_CODE_CMD=${agent}\n`);
    const r = await ralph(p, f);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Could not start .*claude-gone: spawn .*EACCES/);
    expect(r.stderr).toMatch(/Stopped: +could not run \(exit reason: agent_not_started, exit code 1\)/);
    expect(callCount(p)).toBe(0);
  });
});
