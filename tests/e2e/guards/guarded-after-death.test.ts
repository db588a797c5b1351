// An agent that rewrites .ralphrc and kills ralph before the call ends leaves its settings
// behind: no run was alive to undo them. The next start puts the guarded files back as the dead
// run found them, before it reads them, keeps the agent's version in the quarantine and says so;
// a run that ends normally leaves nothing for the next start to undo.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledgerPath } from '../../../lib/state/ledger-path.js';
import { buildStream, FAULT_RC } from '../../fault/fast-agent.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';

const cleanups = useCleanups();

// The first call (no marker yet) rewrites .ralphrc and kills its parent, ralph; later calls work.
const KILLING_AGENT = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi
cat > /dev/null
if [ ! -e "$AGENT_ROOT/killed" ]; then
  : > "$AGENT_ROOT/killed"
  printf 'MAX_CALLS_PER_HOUR=1000\\nTEST_COMMAND="true"\\n' >> .ralphrc
  kill -9 $PPID
  exit 0
fi
echo "one more step" >> progress.txt
cat "$AGENT_ROOT/stream.jsonl"
`;

function setting() {
  const rc = `${FAULT_RC}MAX_CALLS_PER_HOUR=7\n`;
  const p = tmpProject(ralphProjectTree({ '.ralphrc': rc, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n' }), { git: true });
  cleanups.push(() => p.cleanup());
  const root = mkdtempSync(join(tmpdir(), 'ralph-killing-agent-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'bin'));
  writeFileSync(join(root, 'bin', 'claude'), KILLING_AGENT);
  chmodSync(join(root, 'bin', 'claude'), 0o755);
  writeFileSync(join(root, 'stream.jsonl'), buildStream());
  const env = {
    ...GIT_TEST_ENV,
    PATH: `${join(root, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: join(root, 'home'),
    XDG_STATE_HOME: join(root, 'state'),
    AGENT_ROOT: root,
  };
  return { p, rc, env };
}

describe('the guarded files after a run the agent killed', () => {
  it('are put back before the next start reads them, the agent version kept and named', async () => {
    const { p, rc, env } = setting();
    const killed = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env });
    expect(killed.signal ?? killed.code).not.toBe(0);
    expect(readFileSync(p.path('.ralphrc'), 'utf8')).toContain('MAX_CALLS_PER_HOUR=1000');

    const next = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env });
    const said = next.stdout + next.stderr;
    expect(said).toMatch(
      /The last run of this project ended without undoing a change to \.ralphrc .*put back as that run found it; the version found is kept in \.ralph\/quarantine\//,
    );
    // The settings the run used are the user's, not the agent's.
    expect(said).toContain('Max calls per hour: 7');
    expect(said).not.toContain('Max calls per hour: 1000');
    expect(readFileSync(p.path('.ralphrc'), 'utf8')).toBe(rc);
    const quarantine = readdirSync(p.path('.ralph/quarantine'));
    expect(quarantine).toHaveLength(1);
    expect(readFileSync(p.path(`.ralph/quarantine/${quarantine[0]}/.ralphrc`), 'utf8')).toContain('MAX_CALLS_PER_HOUR=1000');
  });

  it('are left as the user edits them after a run that ended', async () => {
    const { p, env } = setting();
    writeFileSync(join(env.AGENT_ROOT, 'killed'), '');
    const ran = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env });
    expect(ran.stdout + ran.stderr).toContain('Loop #1');
    const edited = `${readFileSync(p.path('.ralphrc'), 'utf8')}MAX_CALLS_PER_HOUR=9\n`;
    writeFileSync(p.path('.ralphrc'), edited);
    const next = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env });
    expect(next.stdout + next.stderr).toContain('Max calls per hour: 9');
    expect(readFileSync(p.path('.ralphrc'), 'utf8')).toBe(edited);
    expect(existsSync(p.path('.ralph/quarantine'))).toBe(false);
  });

  it('a record that cannot be kept costs the protection, not the run: said in a warning', async () => {
    const { p, env } = setting();
    writeFileSync(join(env.AGENT_ROOT, 'killed'), '');
    const record = join(dirname(ledgerPath(p.dir, env, env.HOME)), 'guarded-files.json');
    mkdirSync(record, { recursive: true });
    const ran = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env });
    const said = ran.stdout + ran.stderr;
    expect(said).toContain(`Could not keep the guarded files' record at ${record}`);
    expect(said).toContain('Loop #1');
    expect(said).toContain('max_loops_reached');
  });
});
