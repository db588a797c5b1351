// fetchQueueIssue against a `gh` that answers with garbage: whatever it prints, a queued item
// is the issue that was asked for, with a number queue.json accepts (one bad item would make
// the whole file unreadable, and set the user's queue aside).

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchQueueIssue } from '../../../lib/queue/queue-issues.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';

let bin: string;
let project: string;
beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), 'queue-gh-'));
  project = mkdtempSync(join(tmpdir(), 'queue-project-'));
  // Prints GH_REPLY as it is: the test decides what "gh issue view" answers.
  writeFileSync(join(bin, 'gh'), '#!/usr/bin/env node\nprocess.stdout.write(process.env.GH_REPLY ?? "");\n');
  chmodSync(join(bin, 'gh'), 0o755);
});
afterEach(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

const fetchWith = (reply: unknown) =>
  fetchQueueIssue(12, '', {
    runner: nodeProcessRunner,
    // The project's folder, not the fake's: a program in the call's own folder is never run for ralph.
    cwd: project,
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`, GH_REPLY: JSON.stringify(reply) },
  });

describe('fetchQueueIssue and what gh answers', () => {
  it('takes the issue it asked for', async () => {
    expect(await fetchWith({ number: 12, title: 'Twelve', body: 'b', labels: [{ name: 'P1' }] })).toEqual({
      ok: true,
      issue: { number: 12, title: 'Twelve', body: 'b', labels: ['P1'], url: undefined },
    });
  });

  it.each([
    ['a fraction', 12.5],
    ['a negative number', -12],
    ['zero', 0],
    ['another issue', 77],
  ])('refuses an answer whose number is %s', async (_, number) => {
    const fetched = await fetchWith({ number, title: 'x', body: '', labels: [] });
    expect(fetched).toEqual({ ok: false, message: `gh issue view 12 answered for issue ${JSON.stringify(number)}, not #12` });
  });
});
