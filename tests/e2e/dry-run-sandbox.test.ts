// `ralph --dry-run` through the real `bin/ralph` shows the exact command a loop would run: under
// --sandbox bwrap or docker the sandbox's wrapper around the agent's argv (nothing is started),
// and the output format the argv asks for.

import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

async function dryRun(args: string[], rc = '', files: Record<string, string> = {}): Promise<string[]> {
  const p = tmpProject({ ...files, ...ralphProjectTree({ '.ralphrc': FAST_LOOP_RC + rc }) }, { git: true });
  const f = withFakeClaude({ calls: [] });
  cleanups.push(
    () => p.cleanup(),
    () => f.cleanup(),
  );
  const r = await runCli('ralph', ['--dry-run', '--max-loops', '1', ...args], { cwd: p.dir, env: f.env });
  expect(r.code, r.stderr).toBe(0);
  expect(f.runs()).toHaveLength(0);
  const lines = r.stdout.split('\n');
  return [lines[lines.findIndex((l) => l.includes('would execute:')) + 1]!.trim(), lines.find((l) => l.includes('timeout:'))!];
}

describe('ralph --dry-run', () => {
  it('shows the agent argv and the stream-json output it asks for', async () => {
    const [argv, settings] = await dryRun([]);
    expect(argv).toMatch(/^\S*claude .*--output-format stream-json/);
    expect(settings).toContain('output: stream-json');
  });

  it('shows the bwrap wrapper around the agent under --sandbox bwrap', async () => {
    const [argv] = await dryRun(['--sandbox', 'bwrap']);
    // The agent's own file, quoted when its path has a blank (a checkout under such a folder).
    // An allow-list: the system folders, not `/`.
    expect(argv).not.toContain('--ro-bind / /');
    expect(argv).toMatch(
      /^\S*bwrap .*--ro-bind \/usr \/usr .* --unshare-pid --unshare-ipc --unshare-uts (--unshare-user --cap-drop ALL )?--die-with-parent --new-session -- \S*prlimit --nproc=\d+ -- (\S*|'[^']*\/)claude'? /,
    );
  });

  it('shows docker exec into the container under --sandbox docker', async () => {
    const [argv] = await dryRun(['--sandbox', 'docker']);
    expect(argv).toMatch(/^\S*docker exec -i -w \/workspace .*'<container>' claude /);
  });

  it('binds the WORK_DIRS folders read-write under --sandbox bwrap', async () => {
    const [argv] = await dryRun(['--sandbox', 'bwrap'], 'WORK_DIRS="libs-shared"\n', { 'libs-shared/index.js': '' });
    expect(argv).toMatch(/--bind (\S+) \1 --bind \1\/libs-shared \1\/libs-shared /);
  });
});
