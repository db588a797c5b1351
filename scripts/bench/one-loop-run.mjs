// The project and the agent of the cold-start section's one-loop row: `ralph --max-loops 1` as a
// user starts it, on a tiny git project, with an instant fake `claude` (a few lines of POSIX sh
// that answer `--version`, change a tracked file and print a recorded stream-json run of the
// real CLI). Each measured run gets a fresh copy of the project made here (a run leaves its
// state behind: the next would be a resumed one), so what is timed is the start of a new run,
// its one agent call and its closing.

import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { agentRunEnv, instantAgent, RALPH_STATE_IGNORED, writeGitProject } from './bench-project.mjs';

const AGENT = instantAgent('echo "one more step" >> src/progress.log');

const FILES = {
  '.ralph/PROMPT.md': '# Task\nWork through fix_plan.md.\n',
  '.ralph/fix_plan.md': '# Fix Plan\n- [ ] keep going\n- [x] set up\n',
  '.ralph/AGENT.md': '# Agent\n',
  '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\nFAILURE_RETRY_SECONDS=0\n',
  '.gitignore': RALPH_STATE_IGNORED,
  'src/index.js': 'export {};\n',
  'src/progress.log': '',
};

/**
 * Under `root`: the project template (a committed git repository), the agent on a PATH of its
 * own and a HOME; returns the template's path and the environment a run gets.
 */
export function prepareOneLoopRun(root, recordedRun) {
  const template = join(root, 'template');
  writeGitProject(template, FILES);
  const stream = join(root, 'stream.jsonl');
  cpSync(recordedRun, stream);
  const env = agentRunEnv(root, AGENT, {
    extra: {
      BENCH_AGENT_STREAM: stream,
      // As root ralph runs an agent only when told to (the orchestration bench runs so too).
      ...(process.getuid?.() === 0 ? { ALLOW_ROOT_AGENT: 'true' } : {}),
    },
  });
  return { template, env };
}

/** A fresh copy of the template at `dir`, git repository and all. */
export function freshProject(template, dir) {
  cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}
