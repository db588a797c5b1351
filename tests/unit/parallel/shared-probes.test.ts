// The units of a parallel run ask their agent's CLI its version once: the same question asked
// while the first runs, or after it answered, gets its answer; a failed one is asked again; a
// question whose answer depends on the unit's folder is not shared between folders; any other
// call runs every time.

import { describe, expect, it } from 'vitest';
import { shareVersionQuestions } from '../../../lib/parallel/shared-probes.js';
import type { ProcessRunner, RunOptions, RunResult } from '../../../lib/platform/process.js';

function answer(code: number, stdout = ''): RunResult {
  return { code, signal: null, timedOut: false, aborted: false, pipesHeldOpen: false, stdout, stderr: '' };
}

/** A runner that records each call it is given and answers with `reply`. */
function recorder(reply: (cmd: string, args: readonly string[]) => RunResult = () => answer(0, '2.1.0 (Claude Code)\n')) {
  const calls: Array<{ cmd: string; args: readonly string[]; options?: RunOptions }> = [];
  const runner: ProcessRunner = {
    start: () => {
      throw new Error('not used');
    },
    run: async (cmd, args, options) => {
      calls.push({ cmd, args, ...(options ? { options } : {}) });
      await Promise.resolve();
      return reply(cmd, args);
    },
  };
  return { runner, calls };
}

const env = { PATH: '/usr/local/bin:/usr/bin' };

describe('shareVersionQuestions', () => {
  it('runs `claude --version` once for three units asking together, and once more for none asking later', async () => {
    const { runner, calls } = recorder();
    const shared = shareVersionQuestions(runner);
    const answers = await Promise.all(
      ['/p/.ralph/worktrees/a', '/p/.ralph/worktrees/b', '/p/.ralph/worktrees/c'].map((cwd) => shared.run('claude', ['--version'], { cwd, env })),
    );
    expect(answers.map((a) => a.stdout)).toEqual(['2.1.0 (Claude Code)\n', '2.1.0 (Claude Code)\n', '2.1.0 (Claude Code)\n']);
    await shared.run('claude', ['--version'], { cwd: '/p/.ralph/worktrees/d', env });
    expect(calls).toHaveLength(1);
  });

  it('asks again after a failed answer', async () => {
    let code = 1;
    const { runner, calls } = recorder(() => answer(code));
    const shared = shareVersionQuestions(runner);
    expect((await shared.run('claude', ['--version'], { cwd: '/a', env })).code).toBe(1);
    code = 0;
    expect((await shared.run('claude', ['--version'], { cwd: '/b', env })).code).toBe(0);
    expect(calls).toHaveLength(2);
  });

  it('does not share between folders a relative command, nor a name looked up on a PATH with a relative entry', async () => {
    const { runner, calls } = recorder();
    const shared = shareVersionQuestions(runner);
    await shared.run('node_modules/.bin/claude', ['--version'], { cwd: '/a', env });
    await shared.run('node_modules/.bin/claude', ['--version'], { cwd: '/b', env });
    const relativePath = { PATH: 'node_modules/.bin:/usr/bin' };
    await shared.run('claude', ['--version'], { cwd: '/a', env: relativePath });
    await shared.run('claude', ['--version'], { cwd: '/b', env: relativePath });
    expect(calls.map((c) => c.options?.cwd)).toEqual(['/a', '/b', '/a', '/b']);
  });

  it('runs other commands, other questions, and a question asked with another environment, every time', async () => {
    const { runner, calls } = recorder();
    const shared = shareVersionQuestions(runner);
    for (let i = 0; i < 2; i++) {
      await shared.run('git', ['status'], { cwd: '/a', env });
      await shared.run('claude', ['--help'], { cwd: '/a', env });
      await shared.run('codex', ['--version'], { cwd: '/a', env: { ...env } });
    }
    expect(calls.map((c) => `${c.cmd} ${c.args.join(' ')}`)).toEqual([
      'git status',
      'claude --help',
      'codex --version',
      'git status',
      'claude --help',
      'codex --version',
    ]);
  });
});
