// Under `ralph --sandbox bwrap` the agent can commit in the project, but cannot change what git
// runs or where it looks: `.git/config`, `info/`, `hooks/` and `objects/info/` are read-only
// inside, and `.git` itself cannot be renamed away. Each attempt's exit code is written from
// inside the sandbox. Needs bubblewrap (and runs the agent as the project's owner when root).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { bwrapFakeEnv, prepareSandboxProject, requireBwrap } from '../helpers/sandbox-tools.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => requireBwrap(), 300_000);

// Each attempt, and the file its exit code goes to.
const ATTEMPTS: Record<string, string> = {
  commit: 'echo work > work.txt && git add work.txt && git commit -q -m "agent work"',
  config: "printf '[core]\\n\\tfsmonitor = touch /tmp/owned\\n' >> .git/config",
  'git-config': 'git config core.sshCommand "touch /tmp/owned"',
  info: "echo '*' > .git/info/exclude",
  'info-new': 'echo "* filter=x" > .git/info/attributes',
  hook: "printf '#!/bin/sh\\ntouch /tmp/owned\\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit",
  alternates: 'echo /usr/share/objects > .git/objects/info/alternates',
  rename: 'mv .git .git-moved',
};

describe('ralph --sandbox bwrap and the project repository', () => {
  it('lets the agent commit, and change none of what git runs or where it looks', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS="Bash"\n` }), { git: true });
    const fake = withFakeClaude();
    cleanups.push(
      () => project.cleanup(),
      () => fake.cleanup(),
    );
    const out = project.path('.ralph/probe');
    mkdirSync(out, { recursive: true });
    const config = readFileSync(project.path('.git/config'), 'utf8');
    fake.setScenario({
      calls: [
        {
          steps: Object.entries(ATTEMPTS).map(([name, command]) => ({
            tool: 'Bash',
            input: { command: `(${command}) 2> ${out}/${name}.err; echo $? > ${out}/${name}` },
            exec: true,
          })),
          statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
        },
      ],
    });
    const env = {
      ...bwrapFakeEnv(project, fake),
      ...prepareSandboxProject(project, fake),
    };
    const r = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '1'], { cwd: project.dir, env });
    const read = (name: string) => (existsSync(join(out, name)) ? readFileSync(join(out, name), 'utf8').trim() : `(no ${name}: ${r.stderr.slice(-2000)})`);
    expect(read('commit')).toBe('0');
    expect(
      execFileSync('git', ['log', '-1', '--format=%s'], {
        cwd: project.dir,
        env: { ...process.env, GIT_CONFIG_PARAMETERS: `'safe.directory=*'` },
        encoding: 'utf8',
      }).trim(),
    ).toBe('agent work');
    const succeeded = Object.keys(ATTEMPTS).filter((name) => name !== 'commit' && read(name) === '0');
    expect(succeeded).toEqual([]);
    expect(read('rename.err')).toMatch(/busy/i);
    expect(readFileSync(project.path('.git/config'), 'utf8')).toBe(config);
    expect(existsSync(project.path('.git/hooks/post-commit'))).toBe(false);
    expect(existsSync(project.path('.git/objects/info/alternates'))).toBe(false);
    expect(existsSync(project.path('.git-moved'))).toBe(false);
    expect(existsSync('/tmp/owned')).toBe(false);
  }, 90_000);
});
