// Where the tests find the fake gh, the fleet's fake gh, the fake bd, codex, gemini and opencode: the one-file bundles
// `npm test`'s global setup made of them (fake-claude-bundle.ts), named by these env variables,
// or, where no bundle was made (the system suite), the fixture's own entry.

import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures');

/** A fake CLI fixture: its folder, the executable entry there, and the module the entry imports. */
export interface FakeCli {
  dir: string;
  entry: string;
  module: string;
  /** Fixture folders its modules import from (they make the bundle too). */
  imports?: string[];
  /** A call of the fake run once when its bundle is made, whose compiled code later starts reuse (fake-claude-bundle.ts). */
  warmUp?: FakeCliWarmUp;
}

/** A call of a fake: its arguments, and its environment given a scratch folder it runs in. */
export interface FakeCliWarmUp {
  args: string[];
  env(dir: string): Record<string, string>;
}

/** A call of the fake gh as ralph makes them: an issue read from the data file. */
const GH_WARM_UP: FakeCliWarmUp = {
  args: ['issue', 'view', '7', '--json', 'number,title,body,labels,url'],
  env: (dir) => {
    const data = join(dir, 'gh.json');
    writeFileSync(data, JSON.stringify({ issues: [{ number: 7, title: 'Seven', body: 'b', labels: [{ name: 'ralph' }], state: 'OPEN' }] }));
    return { FAKE_GH_DATA: data, FAKE_GH_LOG: join(dir, 'gh.jsonl') };
  },
};

/** The fakes bundled besides the fake claude, by the env variable that names each one's bundle. */
export const FAKE_CLIS = {
  TEST_FAKE_GH_BIN: { dir: join(FIXTURES, 'fake-gh'), entry: 'gh', module: 'gh.mjs', warmUp: GH_WARM_UP },
  TEST_FAKE_GH_FLEET_BIN: { dir: join(FIXTURES, 'fake-gh-fleet'), entry: 'gh', module: 'gh.mjs', imports: [join(FIXTURES, 'fake-gh')], warmUp: GH_WARM_UP },
  TEST_FAKE_BD_BIN: { dir: join(FIXTURES, 'fake-bd'), entry: 'bd', module: 'bd.mjs' },
  TEST_FAKE_CODEX_BIN: { dir: join(FIXTURES, 'fake-codex'), entry: 'codex', module: 'main.mjs' },
  TEST_FAKE_GEMINI_BIN: { dir: join(FIXTURES, 'fake-agents'), entry: 'gemini', module: 'fake-agent.mjs' },
  TEST_FAKE_OPENCODE_BIN: { dir: join(FIXTURES, 'fake-agents'), entry: 'opencode', module: 'fake-agent.mjs' },
} satisfies Record<string, FakeCli>;

/** Where the bundled fake gh keeps the answers its Node program gave, for the whole run: made by the global setup (tests/fixtures/fake-gh/answers.sh). */
export const FAKE_GH_ANSWERS_ENV = 'FAKE_GH_ANSWERS';

/** Where the fake npm keeps the tarballs it packed, for the whole run: made by the global setup (fleet-repo.ts). */
export const NPM_PACK_CACHE_ENV = 'RALPH_TEST_NPM_PACK_CACHE';

/** The bundled fake named by `variable` when the global setup made it, else the fixture's own entry. */
export function fakeCliPath(variable: keyof typeof FAKE_CLIS): string {
  const cli = FAKE_CLIS[variable];
  return process.env[variable] || join(cli.dir, cli.entry);
}
