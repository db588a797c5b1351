// withFakeTaskClis({ gh, bd }): a bin dir holding the fake `gh` and/or `bd`
// (tests/fixtures/fake-gh, fake-bd) with their data files, an env with that dir first on
// PATH, and the argv each fake recorded. Leave `gh` out to test "gh is not installed".

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fakeCliPath } from '../../helpers/fake-cli-paths.js';
import { readFakeGhLog, type FakeGhCall } from '../../helpers/fake-gh-log.js';

export interface FakeIssue {
  number: number;
  title: string;
  body?: string;
  state?: 'open' | 'closed';
  labels?: Array<{ name: string }>;
  assignees?: Array<{ login: string }>;
  milestone?: { title: string } | null;
  comments?: Array<{ author: { login: string }; body: string }>;
  pull_request?: Record<string, unknown>;
}

export interface FakeGhData {
  authenticated?: boolean;
  issues?: FakeIssue[];
  failWith?: string;
  /** Fail one command (`"pr create"`, `"issue close"`, …) with this message. */
  failOn?: Record<string, string>;
  prUrl?: string;
  defaultBranch?: string;
  /** The pull requests `gh pr list` answers with (and `gh api … pulls` adds to). */
  pullRequests?: Array<{ number: number; url: string; headRefName: string; baseRefName?: string; state?: string; title?: string }>;
}

export type { FakeGhCall } from '../../helpers/fake-gh-log.js';

export interface FakeBdData {
  issues?: Array<{ id: string; title: string; status: string; priority?: number }>;
  jsonMode?: 'ok' | 'empty' | 'garbage';
}

export interface FakeTaskClis {
  binDir: string;
  /** Env with binDir first on PATH and the FAKE_* variables. */
  env: Record<string, string>;
  /** Env whose PATH is binDir only: no real gh, bd or git can be found. */
  isolatedEnv: Record<string, string>;
  ghCalls(): string[][];
  /** The gh calls with the stdin each read. */
  ghCallsWithInput(): FakeGhCall[];
  bdCalls(): string[][];
  cleanup(): void;
}

export function withFakeTaskClis(options: { gh?: FakeGhData; bd?: FakeBdData } = {}): FakeTaskClis {
  const root = mkdtempSync(join(tmpdir(), 'fake-task-clis-'));
  const binDir = join(root, 'bin');
  mkdirSync(binDir);
  const ghLog = join(root, 'gh.jsonl');
  const bdLog = join(root, 'bd.jsonl');
  const fake: Record<string, string> = { FAKE_GH_LOG: ghLog, FAKE_BD_LOG: bdLog };
  if (options.gh) {
    symlinkSync(fakeCliPath('TEST_FAKE_GH_BIN'), join(binDir, 'gh'));
    fake.FAKE_GH_DATA = join(root, 'gh.json');
    writeFileSync(fake.FAKE_GH_DATA, JSON.stringify(options.gh));
  }
  if (options.bd) {
    symlinkSync(fakeCliPath('TEST_FAKE_BD_BIN'), join(binDir, 'bd'));
    fake.FAKE_BD_DATA = join(root, 'bd.json');
    writeFileSync(fake.FAKE_BD_DATA, JSON.stringify(options.bd));
  }
  const base = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const readBdLog = (path: string) =>
    existsSync(path)
      ? readFileSync(path, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { argv: string[] }).argv)
      : [];
  return {
    binDir,
    env: { ...base, ...fake, PATH: [binDir, process.env.PATH ?? ''].join(delimiter) },
    isolatedEnv: { ...base, ...fake, PATH: binDir },
    ghCalls: () => readFakeGhLog(ghLog).map((call) => call.argv),
    ghCallsWithInput: () => readFakeGhLog(ghLog),
    bdCalls: () => readBdLog(bdLog),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
