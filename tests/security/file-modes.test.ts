// Files that may hold secrets get owner-only modes, exactly, whatever the umask:
// `.ralph/.claude_session_id` (a resumable session) and the `.ralphrc` the generators write
// (ralph-enable-ci, ralph-setup, ralph-import) are 0600, and so are the raw agent transcripts
// and live.log.

import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { binPath, type CliResult } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Runs a bin under `umask 000`, so any mode that is not set explicitly would come out 666/777. */
function runWithOpenUmask(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'umask 000; exec "$@"', 'sh', process.execPath, binPath(bin), ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function track<T extends { cleanup(): void }>(thing: T): T {
  cleanups.push(() => thing.cleanup());
  return thing;
}

describe('modes of files that may hold secrets', () => {
  it('.claude_session_id is 0600 after a loop, even when it was 0644 before', async () => {
    const p: TmpProject = track(tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] go\n' }), { git: true }));
    const session = p.path('.ralph/.claude_session_id');
    writeFileSync(session, JSON.stringify({ session_id: '0be36961-1027-4798-ad92-cea55f3781b6', timestamp: '' }));
    chmodSync(session, 0o644);
    const f: FakeClaude = track(withFakeClaude({ calls: [{ writeFiles: { 'a.txt': 'a' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] }));
    const r = await runWithOpenUmask('ralph', ['--max-loops', '1', '--no-continue'], p.dir, f.env);
    expect(r.code, r.stderr).toBe(3);
    // --no-continue leaves the old file alone; a resuming run rewrites it (ralph stamps the time).
    expect(modeOf(session)).toBe('644');
    const again = await runWithOpenUmask('ralph', ['--max-loops', '1'], p.dir, f.env);
    expect(again.code, again.stderr).toBe(3);
    expect(JSON.parse(readFileSync(session, 'utf8')).timestamp, again.stderr).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(modeOf(session)).toBe('600');
    // The raw agent transcripts may hold whatever the agent read: owner-only too.
    const logs = readdirSync(p.path('.ralph/logs')).filter((f) => /^claude_(output|stderr)_/.test(f));
    expect(logs.length).toBeGreaterThanOrEqual(4);
    for (const log of logs) expect(modeOf(p.path(`.ralph/logs/${log}`)), log).toBe('600');
    expect(modeOf(p.path('.ralph/.response_analysis'))).toBe('600');
  }, 60_000);

  it('live.log (the rendered agent output) is 0600 after a loop, even when it was 0644 before', async () => {
    const p: TmpProject = track(tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] go\n' }), { git: true }));
    writeFileSync(p.path('.ralph/live.log'), 'an older run\n');
    chmodSync(p.path('.ralph/live.log'), 0o644);
    const f: FakeClaude = track(withFakeClaude({ calls: [{ writeFiles: { 'a.txt': 'a' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] }));
    const r = await runWithOpenUmask('ralph', ['--max-loops', '1'], p.dir, f.env);
    expect(r.code, r.stderr).toBe(3);
    expect(readFileSync(p.path('.ralph/live.log'), 'utf8')).toMatch(/^=== Loop #1 - /);
    expect(modeOf(p.path('.ralph/live.log'))).toBe('600');
  }, 60_000);

  it('ralph-enable-ci writes .ralphrc 0600', async () => {
    const p = track(tmpProject({ 'README.md': '# x\n' }, { git: true }));
    const r = await runWithOpenUmask('ralph-enable-ci', ['--from', 'none'], p.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(modeOf(p.path('.ralphrc'))).toBe('600');
  });

  it('ralph-setup writes .ralphrc 0600', async () => {
    const ws = track(tmpProject({}));
    const r = await runWithOpenUmask('ralph-setup', ['my-app'], ws.dir, {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e.invalid',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(modeOf(join(ws.dir, 'my-app', '.ralphrc'))).toBe('600');
  });

  it('ralph-import writes .ralphrc 0600', async () => {
    const ws = track(tmpProject({ 'prd.md': '# PRD\n- [ ] one\n' }));
    const f = track(
      withFakeClaude({
        calls: [
          { writeFiles: { '.ralph/PROMPT.md': '# P\n', '.ralph/fix_plan.md': '- [ ] t\n', '.ralph/specs/requirements.md': '# R\n' }, resultText: 'Converted.' },
        ],
      }),
    );
    const r = await runWithOpenUmask('ralph-import', ['prd.md', 'app'], ws.dir, f.env);
    expect(r.code, r.stderr).toBe(0);
    expect(modeOf(join(ws.dir, 'app', '.ralphrc'))).toBe('600');
  });
});
