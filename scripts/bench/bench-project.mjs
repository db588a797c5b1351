// What the bench's children share to set up a run: the git identity of the projects they make,
// a committed project from a table of files, and the environment of a run with an instant fake
// `claude` on a PATH and a HOME of its own (nothing of the machine's agent or ralph settings).

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Ralph Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Ralph Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

/**
 * An instant fake `claude` (POSIX sh): answers `--version`, reads its prompt, runs `steps` (the
 * change it makes to the project, one shell line each) and prints the recorded stream-json run
 * named by $BENCH_AGENT_STREAM.
 */
export function instantAgent(...steps) {
  return [
    '#!/bin/sh',
    'for arg in "$@"; do',
    '  if [ "$arg" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi',
    'done',
    'cat > /dev/null',
    ...steps,
    'cat "$BENCH_AGENT_STREAM"',
    '',
  ].join('\n');
}

/** The `.gitignore` of a bench project: ralph's own state is no change of the project's. */
export const RALPH_STATE_IGNORED = '.ralph/logs/\n.ralph/.*\n.ralph/status.json\n.ralph/progress.json\n.ralph/live.log\n.ralph/sessions/\n';

/** Writes `files` (relative path → text) under `dir` and commits them all on `main`; `env` adds to GIT_ENV. */
export function writeGitProject(dir, files, env = {}) {
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, relative)), { recursive: true });
    writeFileSync(join(dir, relative), content);
  }
  const git = (...args) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV, ...env }, stdio: 'ignore', maxBuffer: 1 << 30 });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return git;
}

/**
 * Under `root`: `bin/claude` (the script `agent`), a HOME with its `.claude`, and the environment
 * of a run there, the machine's agent and ralph variables (and those matching `drop`) left out.
 * The XDG folders are left out too, so they are the HOME's: the run's ledger and anything else it
 * keeps goes with `root`, never into the user's state or configuration (the build makes the code
 * cache from such a run, at every build).
 */
export function agentRunEnv(root, agent, { drop, extra = {} } = {}) {
  const bin = join(root, 'bin');
  const home = join(root, 'home');
  for (const dir of [bin, join(home, '.claude')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(bin, 'claude'), agent);
  chmodSync(join(bin, 'claude'), 0o755);
  const kept = Object.entries(process.env).filter(
    ([name]) => !/^(FAKE_CLAUDE_|ANTHROPIC_|CLAUDE_CODE_|RALPH_|XDG_)/.test(name) && name !== 'CLAUDE_CONFIG_DIR' && !(drop && drop.test(name)),
  );
  return {
    ...Object.fromEntries(kept),
    ...GIT_ENV,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    NO_COLOR: '1',
    ...extra,
  };
}
