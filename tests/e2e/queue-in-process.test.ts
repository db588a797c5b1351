// queueInProcess (tests/helpers/queue-in-process.ts) sets a queue up as `bin/ralph-queue` does:
// the same commands on two alike projects leave the same queue.json (but the times), the same
// exit codes and the same messages; and it refuses to run the queue itself.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../helpers/cleanups.js';
import { queueInProcess } from '../helpers/queue-in-process.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { withFakeTaskClis } from '../integration/bootstrap/fake-task-clis.js';

const cleanups = useCleanups();

const COMMANDS = [
  ['add', '--prd', 'docs/feature.md'],
  ['add', '3', '5'],
  ['add', '--prd', 'docs/missing.md'],
  ['add', '4', '--repo', 'owner/repo'],
  ['remove', 'github-3'],
  ['remove', 'github-9'],
];

interface Outcome {
  results: Array<{ code: number | null; stdout: string; stderr: string }>;
  queue: unknown;
}

/** The commands, one after another, in a new project, run by `run`. */
async function outcomeOf(run: (dir: string, argv: string[], env: Record<string, string>) => Promise<CliResult>): Promise<Outcome> {
  const project = tmpProject(ralphProjectTree({ 'docs/feature.md': '# Feature\n' }), { git: true });
  cleanups.push(() => project.cleanup());
  const clis = withFakeTaskClis({
    gh: {
      issues: [
        { number: 3, title: 'Three', labels: [{ name: 'P1' }], body: 'Depends on #4' },
        { number: 4, title: 'Four' },
      ],
    },
  });
  cleanups.push(() => clis.cleanup());
  const fakeGh = Object.fromEntries(Object.entries(clis.env).filter(([key]) => key.startsWith('FAKE_GH')));
  const env = { ...fakeGh, PATH: [clis.binDir, process.env.PATH].join(delimiter) };
  const results = [];
  for (const argv of COMMANDS) {
    const result = await run(project.dir, argv, env);
    results.push({ code: result.code, stdout: result.stdout, stderr: withoutTimes(result.stderr) });
  }
  // Every time in it stands as "time".
  const queue = JSON.parse(readFileSync(project.path('.ralph/queue.json'), 'utf8'), (_key, value: unknown) =>
    typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? 'time' : value,
  ) as unknown;
  return { results, queue };
}

const withoutTimes = (text: string) => text.replace(/^\[[^\]]+\] /gm, '[time] ');

describe('queueInProcess', () => {
  it('leaves the queue, exit codes and messages that bin/ralph-queue leaves', async () => {
    const byProcess = await outcomeOf((dir, argv, env) => runCli('ralph-queue', argv, { cwd: dir, env }));
    const inProcess = await outcomeOf(queueInProcess);
    expect(inProcess).toEqual(byProcess);
    // The commands did what they say (so the comparison is of something).
    expect(byProcess.results.map((result) => result.code)).toEqual([0, 1, 1, 0, 0, 1]);
    expect(byProcess.results[2]!.stderr).toContain('PRD file not found: docs/missing.md');
    expect((byProcess.queue as { queue: Array<{ id: string }> }).queue.map((item) => item.id)).toEqual(['prd-docs-feature-md', 'github-4']);
  }, 60_000);

  it('runs no queue: process is for the command line', async () => {
    const project = tmpProject(ralphProjectTree(), { git: true });
    cleanups.push(() => project.cleanup());
    mkdirSync(project.path('.ralph'), { recursive: true });
    writeFileSync(project.path('.ralph/queue.json'), '{"queue": []}\n');
    await expect(queueInProcess(project.dir, ['process'])).rejects.toThrow('run ralph-queue process with runCli');
  });
});
