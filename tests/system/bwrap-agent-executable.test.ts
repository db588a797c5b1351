// `--sandbox bwrap` with an agent installed where the sandbox hides things: under $HOME (Claude's
// native installer puts `claude` in ~/.local/bin, a symlink to its real file further inside the
// home). ralph binds the agent's own file read-only, nothing else of the home, and `--doctor`
// runs the agent's --version inside the sandbox, so an agent it cannot start fails there.

import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE_DIR, withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { prepareSandboxProject, requireBwrap } from '../helpers/sandbox-tools.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => requireBwrap(), 300_000);

interface HomeInstall {
  project: TmpProject;
  fake: FakeClaude;
  env: Record<string, string>;
}

/** The fake claude installed as the native installer does: ~/.local/bin/claude -> ~/.local/share/claude/versions/… */
function installAgentInHome(): HomeInstall {
  const project = tmpProject(
    ralphProjectTree({
      '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nALLOWED_TOOLS="Read,Write,Bash"\n`,
      '.ralph/fix_plan.md': '- [ ] one\n',
    }),
    { git: true },
  );
  const fake = withFakeClaude();
  cleanups.push(
    () => project.cleanup(),
    () => fake.cleanup(),
  );
  const versions = join(fake.home, '.local/share/claude/versions/fake');
  cpSync(FAKE_CLAUDE_DIR, versions, { recursive: true });
  mkdirSync(join(fake.home, '.local/bin'), { recursive: true });
  symlinkSync(join(versions, 'claude'), join(fake.home, '.local/bin/claude'));
  const otherPath = (fake.env.PATH ?? '').split(delimiter).filter((dir) => dir !== fake.binDir);
  const env = {
    ...fake.env,
    ...GIT_TEST_ENV,
    PATH: [join(fake.home, '.local/bin'), ...otherPath].join(delimiter),
    ANTHROPIC_API_KEY: 'sk-ant-bwrap-test-key',
    FAKE_CLAUDE_STATE_DIR: project.path('.ralph/fake-state'),
    FAKE_CLAUDE_LOG: project.path('.ralph/fake-state/calls.jsonl'),
    // The test's scenario file only: the agent's own folders are found by ralph.
    SANDBOX_BWRAP_BIND: fake.scenarioPath,
    ...prepareSandboxProject(project, fake),
  };
  return { project, fake, env };
}

const line = (text: string, name: string) => text.split('\n').find((l) => l.includes(`${name}:`)) ?? '';

describe('--sandbox bwrap with the agent under $HOME', () => {
  it('runs the plan to completion, and the rest of the real home stays hidden', async () => {
    const { project, fake, env } = installAgentInHome();
    const secret = `planted-secret-${process.pid}`;
    writeFileSync(join(fake.home, 'secret.txt'), `${secret}\n`);
    fake.setScenario({
      calls: [
        {
          steps: [{ tool: 'Bash', input: { command: 'cat "$HOME/secret.txt"' }, exec: true }],
          writeFiles: { 'src/done.txt': 'done\n' },
          tickFixPlan: 'all',
          statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
        },
      ],
    });
    const run = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '3'], { cwd: project.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8')).toContain('exit reason: plan_complete');
    const logs = readdirSync(project.path('.ralph/logs'))
      .filter((n) => n.startsWith('claude_output_'))
      .map((n) => readFileSync(project.path(`.ralph/logs/${n}`), 'utf8'))
      .join('\n');
    expect(logs).not.toContain(secret);
    expect(logs).toContain('No such file or directory');
  }, 120_000);

  it("--doctor runs the agent's --version inside the sandbox: OK when it runs, FAIL with its error when it cannot", async () => {
    const { project, fake, env } = installAgentInHome();
    const ok = await runCli('ralph', ['--doctor', '--sandbox', 'bwrap'], { cwd: project.dir, env });
    expect(line(ok.stdout, 'sandbox (bwrap)')).toBe("[OK]   sandbox (bwrap): bubblewrap runs here, and the agent's --version runs inside it");

    // A wrapper that starts a program kept elsewhere in the hidden home: it runs on the host only.
    const wrapper = join(fake.home, '.local/bin/claude-wrapper');
    writeFileSync(wrapper, `#!/bin/sh\nexec "${join(fake.home, 'tools/claude')}" "$@"\n`, { mode: 0o755 });
    mkdirSync(join(fake.home, 'tools'));
    symlinkSync(join(fake.home, '.local/share/claude/versions/fake/claude'), join(fake.home, 'tools/claude'));
    const failed = await runCli('ralph', ['--doctor', '--sandbox', 'bwrap'], { cwd: project.dir, env: { ...env, CLAUDE_CODE_CMD: wrapper } });
    expect(line(failed.stdout, 'Claude Code CLI')).toMatch(/^\[OK\]/);
    expect(line(failed.stdout, 'sandbox (bwrap)')).toMatch(
      /^\[FAIL\] sandbox \(bwrap\): '.*claude-wrapper --version' fails inside the sandbox \(.*tools\/claude.*\): ralph would refuse to run — fix: add what the agent needs .* to SANDBOX_BWRAP_BIND/,
    );
    expect(failed.code).toBe(1);
  }, 120_000);
});
