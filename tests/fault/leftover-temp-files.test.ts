// What a writer killed mid-write (kill -9) leaves in `.ralph/` is swept by the next run, whether
// or not that run writes the same files: a leftover would otherwise show in `git status` of a
// project whose .gitignore names ralph's files one by one (the Bash tool's), for an agent's
// `git add -A` to commit.

import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDeadWritersTempFiles } from '../../lib/state/atomic-write.js';
import { runCli } from '../helpers/run-cli.js';
import { createFastAgent, faultProject, listTempFiles } from './fast-agent.js';

// No process has this pid (above any pid_max): the temp files' writer is dead.
const DEAD = 999_999_999;

describe('temp files a killed ralph left in .ralph', () => {
  const agent = createFastAgent();
  afterAll(() => agent.cleanup());

  it('are removed by the next run, even of files that run does not write', async () => {
    const project = faultProject();
    const left = [
      `.ralph/.usage_limit_wait.tmp-${DEAD}-0badf00d`,
      `.ralph/.github_lifecycle_state.tmp-${DEAD}-0badf00d`,
      `.ralph/.status.json.tmp-${DEAD}-0badf00d`,
      `.ralph/sessions/.20261101T000000Z-000000.json.tmp-${DEAD}-0badf00d`,
    ];
    mkdirSync(project.path('.ralph/sessions'), { recursive: true });
    for (const name of left) writeFileSync(project.path(name), '{"half":');
    const run = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: agent.env });
    expect(run.code, run.stderr).toBe(3);
    expect(listTempFiles(project.dir)).toEqual([]);
    project.cleanup();
  });
});

describe('the sweep of dead writers’ temp files', () => {
  it('takes them from .ralph and every folder right under it, however many, and nothing else', () => {
    const project = faultProject();
    const ralph = project.path('.ralph');
    const live = `.status.json.tmp-${process.pid}-0badf00d`;
    // More folders than ralph keeps open at once: each is swept before the next is opened, and
    // the files of .ralph itself before any (listed in name order, these come after the folders).
    for (let i = 0; i < 40; i++) writeFileSync(join(ralph, `.view-${i}.tmp-${DEAD}-0badf00d`), '{');
    for (let i = 0; i < 40; i++) {
      mkdirSync(join(ralph, `.folder-${i}`));
      writeFileSync(join(ralph, `.folder-${i}`, `.f${i}.json.tmp-${DEAD}-0badf00d`), '{');
      writeFileSync(join(ralph, `.folder-${i}`, 'kept.json'), '{}');
    }
    writeFileSync(join(ralph, live), '{');
    removeDeadWritersTempFiles(ralph);
    const left = readdirSync(ralph).filter((name) => name.includes('.tmp-'));
    expect(left).toEqual([live]);
    for (let i = 0; i < 40; i++) expect(readdirSync(join(ralph, `.folder-${i}`))).toEqual(['kept.json']);
    project.cleanup();
  });
});
