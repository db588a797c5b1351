// The project and the agent of the cold-start section's one-loop row: `ralph --max-loops 1` as a
// user starts it, on a tiny git project, with an instant fake `claude` (a few lines of POSIX sh
// that answer `--version`, change a tracked file and print a recorded stream-json run of the
// real CLI). Each measured run gets a fresh copy of the project made here (a run leaves its
// state behind: the next would be a resumed one), so what is timed is the start of a new run,
// its one agent call and its closing.

import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Ralph Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Ralph Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

const AGENT = `#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi
done
cat > /dev/null
echo "one more step" >> src/progress.log
cat "$BENCH_AGENT_STREAM"
`;

const FILES = {
  '.ralph/PROMPT.md': '# Task\nWork through fix_plan.md.\n',
  '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n- [x] set up\n',
  '.ralph/AGENT.md': '# Agent\n',
  '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\nFAILURE_RETRY_SECONDS=0\n',
  '.gitignore': '.ralph/logs/\n.ralph/.*\n.ralph/status.json\n.ralph/progress.json\n.ralph/live.log\n.ralph/sessions/\n',
  'src/index.js': 'export {};\n',
  'src/progress.log': '',
};

/**
 * Under `root`: the project template (a committed git repository), the agent on a PATH of its
 * own and a HOME; returns the template's path and the environment a run gets.
 */
export function prepareOneLoopRun(root, recordedRun) {
  const template = join(root, 'template');
  for (const [relative, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(template, relative)), { recursive: true });
    writeFileSync(join(template, relative), content);
  }
  const git = (...args) => execFileSync('git', args, { cwd: template, env: { ...process.env, ...GIT_ENV }, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  const bin = join(root, 'bin');
  const home = join(root, 'home');
  for (const dir of [bin, join(home, '.claude')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(bin, 'claude'), AGENT);
  chmodSync(join(bin, 'claude'), 0o755);
  const stream = join(root, 'stream.jsonl');
  cpSync(recordedRun, stream);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(FAKE_CLAUDE_|ANTHROPIC_|CLAUDE_CODE_|RALPH_)/.test(name) && name !== 'CLAUDE_CONFIG_DIR'),
  );
  return {
    template,
    env: {
      ...env,
      ...GIT_ENV,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      BENCH_AGENT_STREAM: stream,
      // As root ralph runs an agent only when told to (the orchestration bench runs so too).
      ...(process.getuid?.() === 0 ? { ALLOW_ROOT_AGENT: 'true' } : {}),
      NO_COLOR: '1',
    },
  };
}

/** A fresh copy of the template at `dir`, git repository and all. */
export function freshProject(template, dir) {
  cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}
