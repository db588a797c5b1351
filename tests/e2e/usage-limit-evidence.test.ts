// Usage limits are read from failed runs only: a successful run whose answer
// quotes the CLI's limit message, or that saw a rejected rate_limit_event before a retry worked,
// is not a limit and the loop goes on at once; a failed run that prints Claude's plain-text
// 5-hour message (the upstream Bash suite's mock) is one. Driven through the real `bin/ralph`.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECORDINGS_DIR, withFakeClaude, type FakeClaude, type FakeScenario } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli, type CliResult, type RunCliOptions } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

function project(): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
  cleanups.push(() => p.cleanup());
  return p;
}

function fake(scenario: FakeScenario, auth: 'apiKey' | 'subscription' = 'apiKey'): FakeClaude {
  const f = withFakeClaude(scenario, { auth });
  cleanups.push(() => f.cleanup());
  return f;
}

/** A directory of hand-made recordings for the fake's `replay` (LABEL.stdout / .stderr / .rc). */
function recordings(files: Record<string, { stdout: string; rc: number }>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-recordings-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [label, { stdout, rc }] of Object.entries(files)) {
    writeFileSync(join(dir, `${label}.stdout`), stdout);
    writeFileSync(join(dir, `${label}.stderr`), '');
    writeFileSync(join(dir, `${label}.rc`), `${rc}\n`);
  }
  return dir;
}

/** A ralph that would sit in a wait is killed after 20 s (inside the test timeout). */
function ralph(p: TmpProject, f: FakeClaude, args: string[], extra: RunCliOptions = {}): Promise<CliResult> {
  return runCli('ralph', args, {
    cwd: p.dir,
    env: f.env,
    ...extra,
    onSpawn: (child) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', () => clearTimeout(timer));
      extra.onSpawn?.(child);
    },
  });
}

const work = { writeFiles: { 'out.txt': 'work' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };

describe('a successful run is never a usage limit', () => {
  it('an answer that quotes "You\'ve hit your 5-hour limit" (is_error false, exit 0) does not wait', async () => {
    const p = project();
    const quoted = "You've hit your 5-hour limit · resets 5:45am (UTC) is what the CLI prints at a limit; I added a test for it.";
    const f = fake({ defaults: { ...work, resultText: quoted } });
    const r = await ralph(p, f, ['--max-loops', '2']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    expect(f.runs()).toHaveLength(2);
    expect(r.stderr).not.toMatch(/usage limit reached/i);
    expect(existsSync(p.path('.ralph/.usage_limit_wait'))).toBe(false);
  });

  it('a rejected rate_limit_event followed by a normal success does not wait', async () => {
    const p = project();
    // The real CLI's successful subscriber run, with its rate_limit_event replaced by a rejected
    // one (reset in 11 minutes) ahead of the answer and the result: the retry went through.
    const lines = readFileSync(join(RECORDINGS_DIR, 'oauth_ok_sj.stdout'), 'utf8').trimEnd().split('\n');
    const rejected = JSON.stringify({
      type: 'rate_limit_event',
      rate_limit_info: { status: 'rejected', resetsAt: Math.floor(Date.now() / 1000) + 660, rateLimitType: 'five_hour', isUsingOverage: false },
      uuid: '5ca907df-0000-4000-8000-000000000001',
      session_id: '3a77612c-c8e8-4da6-aa0c-d375cfea3755',
    });
    const stdout = [lines[0], rejected, ...lines.slice(1).filter((l) => !l.includes('"rate_limit_event"'))].join('\n') + '\n';
    expect(JSON.parse(stdout.trimEnd().split('\n').at(-1)!)).toMatchObject({ type: 'result', is_error: false });
    const dir = recordings({ rejected_then_ok: { stdout, rc: 0 } });
    const f = fake({ defaults: { replay: 'rejected_then_ok', recordingsDir: dir } }, 'subscription');
    const r = await ralph(p, f, ['--max-loops', '2', '--no-continue']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    expect(f.runs()).toHaveLength(2);
    expect(r.stderr).not.toMatch(/usage limit reached/i);
    expect(existsSync(p.path('.ralph/.usage_limit_wait'))).toBe(false);
  });
});

describe('a failed run that states a limit is one', () => {
  it('the plain-text 5-hour message with exit 1 is a usage limit: ralph waits for it', async () => {
    const p = project();
    const dir = recordings({
      plain_5h: { stdout: "You've reached your 5-hour usage limit for Claude.\nPlease try again later when your limit resets.\n", rc: 1 },
    });
    const f = fake({ defaults: { replay: 'plain_5h', recordingsDir: dir } });
    let sawWait = false;
    const r = await ralph(p, f, ['--max-loops', '1'], {
      onSpawn: (child) => {
        // Once the wait is on disk ralph is waiting it out: stop it there.
        const timer = setInterval(() => {
          if (existsSync(p.path('.ralph/.usage_limit_wait'))) {
            sawWait = true;
            clearInterval(timer);
            child.kill('SIGTERM');
          }
        }, 50);
        child.on('exit', () => clearInterval(timer));
      },
    });
    expect(sawWait).toBe(true);
    expect(r.code).toBe(143);
    expect(r.stderr).toContain("Claude usage limit reached: You've reached your 5-hour usage limit for Claude.");
    expect(r.stderr).not.toContain('Claude Code execution failed');
    expect(f.runs()).toHaveLength(1);
  });
});

describe('the choice at the usage-limit prompt from a non-terminal stdin', () => {
  const plain5h = { stdout: "You've reached your 5-hour usage limit for Claude.\nPlease try again later when your limit resets.\n", rc: 1 };

  it('"2" piped into stdin chooses exit: stopped at the limit, exit 3, api_limit_exit', async () => {
    const p = project();
    const f = fake({ defaults: { replay: 'plain_5h', recordingsDir: recordings({ plain_5h: plain5h }) } });
    const r = await ralph(p, f, ['--max-loops', '5'], { input: '2' });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    expect(f.runs()).toHaveLength(1);
    const status = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8'));
    expect(status).toMatchObject({ last_action: 'api_limit_exit', status: 'stopped', exit_reason: 'api_5hour_limit' });
    expect(JSON.parse(readFileSync(p.path('.ralph/.ralph_session'), 'utf8')).reset_reason).toBe('api_limit_exit');
    expect(existsSync(p.path('.ralph/.usage_limit_wait'))).toBe(false);
  });

  it('an empty stdin (EOF) is unattended: ralph waits for the reset', async () => {
    const p = project();
    const f = fake({ defaults: { replay: 'plain_5h', recordingsDir: recordings({ plain_5h: plain5h }) } });
    let waited = false;
    const r = await ralph(p, f, ['--max-loops', '5'], {
      input: '',
      onSpawn: (child) => {
        const timer = setInterval(() => {
          const status = p.path('.ralph/status.json');
          if (existsSync(status) && JSON.parse(readFileSync(status, 'utf8')).last_action === 'api_limit') {
            if (readFileSync(p.path('.ralph/logs/ralph.log'), 'utf8').includes('time until retry')) {
              waited = true;
              clearInterval(timer);
              child.kill('SIGTERM');
            }
          }
        }, 50);
        child.on('exit', () => clearInterval(timer));
      },
    });
    expect(waited).toBe(true);
    expect(r.code).toBe(143);
    expect(f.runs()).toHaveLength(1);
  });
});
