// ralph's loop (in the test's process, tests/helpers/ralph-in-process.ts; --rollback is the built
// bin/ralph) with --backup and --notify, against the fake claude and real git:
// the backup made before loop 2 holds the edited tracked file and the new untracked file made in
// loop 1, git's stash list, index and working tree are left as the agent left them, and
// --rollback restores that backup; --notify reaches a fake notify-send on completion;
// LOG_RETENTION keeps only the newest agent output logs.

import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { runRalphInProcess } from '../../helpers/ralph-in-process.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };

function project(files: Record<string, string>): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, ...files }), { git: true });
  cleanups.push(() => p.cleanup());
  return p;
}

/**
 * What a user sees of git: HEAD, the staged blobs and modes, the staged diff and the stash list.
 * Not `ls-files --debug`: its stat cache is what any git command may refresh.
 */
function userGitState(p: TmpProject) {
  return {
    head: p.git('rev-parse', 'HEAD').trim(),
    index: p.git('ls-files', '-s'),
    staged: p.git('diff', '--cached', '--name-status'),
    stagedDiff: p.git('diff', '--cached'),
    stash: p.git('stash', 'list'),
  };
}

describe('ralph --backup / --rollback', () => {
  it('backs up uncommitted work before loop 2 without touching git state, and rolls back to it', async () => {
    const p = project({ 'src/app.ts': 'v1\n', '.ralph/fix_plan.md': '- [ ] one\n- [ ] two\n' });
    const fake = withFakeClaude({
      calls: [
        { tickFixPlan: 1, writeFiles: { 'src/app.ts': 'v2 from loop 1\n', 'notes/new.md': 'untracked, from loop 1\n' }, statusBlock: working },
        { tickFixPlan: 1, writeFiles: { 'src/app.ts': 'v3 from loop 2\n', 'later.md': 'from loop 2\n' }, statusBlock: working },
      ],
    });
    cleanups.push(() => fake.cleanup());
    const env = { ...fake.env, ...GIT_TEST_ENV };
    // A change the user staged before the run, so "the index is untouched" has content to lose.
    writeFileSync(p.path('staged.md'), 'staged by the user\n');
    p.git('add', 'staged.md');
    const gitBefore = userGitState(p);
    expect(gitBefore.staged).toContain('staged.md');

    const run = await runRalphInProcess(p.dir, ['--backup'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(fake.runs()).toHaveLength(2);

    const refs = p.git('for-each-ref', '--format=%(refname)', 'refs/ralph/backups/').split('\n').filter(Boolean);
    expect(refs).toHaveLength(2);
    const loop2 = refs.find((r) => /\/loop-2-\d+$/.test(r))!;
    expect(loop2).toBeDefined();
    expect(p.git('show', `${loop2}:src/app.ts`)).toBe('v2 from loop 1\n');
    expect(p.git('show', `${loop2}:notes/new.md`)).toBe('untracked, from loop 1\n');
    expect(p.git('ls-tree', '-r', '--name-only', loop2)).not.toContain('later.md');

    // Nothing of the user's git state moved: same HEAD, staged blobs and modes, no stash; the
    // files are as the agent left them.
    expect(userGitState(p)).toEqual(gitBefore);
    expect(readFileSync(p.path('src/app.ts'), 'utf8')).toBe('v3 from loop 2\n');
    expect(readFileSync(p.path('notes/new.md'), 'utf8')).toBe('untracked, from loop 1\n');

    const name = loop2.slice('refs/ralph/backups/'.length);
    const list = await runCli('ralph', ['--rollback'], { cwd: p.dir, env });
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[1]).toContain(name);

    const refused = await runCli('ralph', ['--rollback', name], { cwd: p.dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('uncommitted changes');
    expect(readFileSync(p.path('src/app.ts'), 'utf8')).toBe('v3 from loop 2\n');

    const forced = await runCli('ralph', ['--rollback', name, '--force'], { cwd: p.dir, env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`Rolled back to: ${name}`);
    expect(readFileSync(p.path('src/app.ts'), 'utf8')).toBe('v2 from loop 1\n');
    expect(readFileSync(p.path('notes/new.md'), 'utf8')).toBe('untracked, from loop 1\n');
    expect(existsSync(p.path('later.md'))).toBe(false);
    expect(userGitState(p)).toEqual(gitBefore);
  });
});

describe('ralph --notify', () => {
  it('prunes the backups it made, never by the time in a ref name: 20 forged far-future refs leave the real ones be', async () => {
    const p = project({ '.ralphrc': `${FAST_LOOP_RC}BACKUP_KEEP=2\n`, '.ralph/fix_plan.md': '- [ ] one\n- [ ] two\n- [ ] three\n' });
    const fake = withFakeClaude({ defaults: { writeFiles: { 'work.txt': 'more\n' }, statusBlock: working } });
    cleanups.push(() => fake.cleanup());
    // What an agent planted in an earlier run (refs/ is in the project): backups dated 2100.
    const head = p.git('rev-parse', 'HEAD').trim();
    for (let n = 1; n <= 20; n++) p.git('update-ref', `refs/ralph/backups/loop-1-4102444800-${n}`, head);

    const run = await runRalphInProcess(p.dir, ['--backup', '--max-loops', '3'], { ...fake.env, ...GIT_TEST_ENV });
    expect(fake.runs()).toHaveLength(3);
    expect(run.stderr).not.toContain('internal error');
    const refs = p.git('for-each-ref', '--format=%(refname)', 'refs/ralph/backups/').split('\n').filter(Boolean);
    expect(refs.filter((r) => r.includes('-4102444800-'))).toHaveLength(20);
    // The newest two of ralph's own (before loops 2 and 3) are kept; the one before loop 1 went.
    expect(refs.filter((r) => !r.includes('-4102444800-')).map((r) => /loop-(\d+)-/.exec(r)?.[1])).toEqual(['2', '3']);
  }, 60_000);

  it('records a completion notification through notify-send', async () => {
    const notifyDir = mkdtempSync(join(tmpdir(), 'ralph-e2e-notify-'));
    cleanups.push(() => rmSync(notifyDir, { recursive: true, force: true }));
    const log = join(notifyDir, 'calls.log');
    writeFileSync(join(notifyDir, 'notify-send'), '#!/bin/sh\nprintf "%s|%s\\n" "$1" "$2" >> "$NOTIFY_LOG"\n');
    chmodSync(join(notifyDir, 'notify-send'), 0o755);
    const p = project({ '.ralph/fix_plan.md': '- [ ] only task\n' });
    const fake = withFakeClaude({
      calls: [{ tickFixPlan: 'all', writeFiles: { 'done.txt': 'ok\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }],
    });
    cleanups.push(() => fake.cleanup());
    const env = { ...fake.env, ...GIT_TEST_ENV, NOTIFY_LOG: log, PATH: [notifyDir, fake.env.PATH].join(delimiter) };

    const run = await runRalphInProcess(p.dir, ['--notify'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('Ralph - Complete|Ralph finished: plan complete\n');
  });
});

describe('log retention', () => {
  /** Four working calls under the given .ralphrc lines; the names left in .ralph/logs. */
  async function fourCalls(rc: string): Promise<string[]> {
    const p = project({ '.ralphrc': `${FAST_LOOP_RC}${rc}`, '.ralph/fix_plan.md': '- [ ] a\n- [ ] b\n- [ ] c\n- [ ] d\n' });
    const calls = [1, 2, 3, 4].map((n) => ({ tickFixPlan: 1, writeFiles: { [`f${n}.txt`]: `${n}\n` }, statusBlock: working }));
    const fake = withFakeClaude({ calls });
    cleanups.push(() => fake.cleanup());
    const run = await runRalphInProcess(p.dir, [], { ...fake.env, ...GIT_TEST_ENV });
    expect(run.code, run.stderr).toBe(0);
    expect(fake.runs()).toHaveLength(4);
    return readdirSync(p.path('.ralph/logs'));
  }

  it('keeps only the newest LOG_RETENTION agent output logs', async () => {
    const logs = await fourCalls('LOG_RETENTION=2\n');
    expect(logs.filter((f) => f.startsWith('claude_output_'))).toHaveLength(2);
    expect(logs).toContain('metrics.jsonl');
  });

  it("keeps no more than LOG_RETENTION_BYTES of agent logs: at 1 byte, only the last call's", async () => {
    const logs = await fourCalls('LOG_RETENTION_BYTES=1\n');
    expect(logs.filter((f) => f.startsWith('claude_output_') && !f.endsWith('_stream.log'))).toHaveLength(1);
    expect(logs).toContain('metrics.jsonl');
    expect(logs).toContain('ralph.log');
  });

  it('LOG_RETENTION_BYTES out of range is an error naming the key and the range', async () => {
    const p = project({ '.ralphrc': `${FAST_LOOP_RC}LOG_RETENTION_BYTES=99999999999999999999\n` });
    const run = await runCli('ralph', ['--dry-run'], { cwd: p.dir, env: GIT_TEST_ENV });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('LOG_RETENTION_BYTES');
    expect(run.stderr).toMatch(/0\D+1099511627776/);
  });
});
