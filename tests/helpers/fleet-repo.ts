// withFleetRepo(): what a fleet job meets on GitHub, without GitHub: a bare `origin` holding a
// Ralph project on `main`, fresh clones of it as actions/checkout makes them, and the fleet's
// fake gh (tests/fixtures/fake-gh-fleet) with its data file and call log.

import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { findExecutable } from '../../lib/platform/find-executable.js';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { withFakeClaude, type FakeClaude, type FakeScenario } from './fake-claude.js';
import { fakeCliPath, NPM_PACK_CACHE_ENV } from './fake-cli-paths.js';
import { readFakeGhLog, type FakeGhCall } from './fake-gh-log.js';
import { FAST_LOOP_RC } from './loop-harness.js';
import { templateKey } from './project-templates.js';
import { GIT_TEST_ENV, ralphProjectTree, removeWhenTheFileEnds, tmpProject } from './tmp-project.js';

const FIXTURES = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures');
const FAKE_GH = fakeCliPath('TEST_FAKE_GH_FLEET_BIN');

/** The registry integrity the fake npm gives every agent CLI (`npm view … dist.integrity`). */
export const FAKE_AGENT_INTEGRITY = 'sha512-ZmFrZS1hZ2VudC1jbGktdGFyYmFsbA==';

/**
 * The env `ralph-fleet init` runs with in a test: the fleet's fake gh, and a fake npm whose
 * `view` answers FAKE_AGENT_INTEGRITY (the registry is not reached) while `pack` is the real npm's,
 * run once for the same files (the tarballs it made are kept for the run's other tests:
 * tests/fixtures/fake-npm-view/npm).
 */
export function fleetInitEnv(r: FleetRepo, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const realNpm = findExecutable('npm', process.env);
  if (!realNpm) throw new Error('npm is not on PATH');
  return {
    ...process.env,
    ...r.ghEnv,
    REAL_NPM: realNpm,
    FAKE_NPM_INTEGRITY: FAKE_AGENT_INTEGRITY,
    FAKE_NPM_PACK_CACHE: npmPackCache(),
    PATH: [join(FIXTURES, 'fake-npm-view'), r.ghBinDir, process.env.PATH].join(delimiter),
    ...extra,
  };
}

let packCache: string | undefined;

/**
 * The fake npm's tarballs: the run's folder (made by the global setup, so the fleet's test files
 * pack ralph once between them), or, in a run without it, this test file's, a new folder once the
 * last file's is removed.
 */
export function npmPackCache(env: NodeJS.ProcessEnv = process.env): string {
  const ofTheRun = env[NPM_PACK_CACHE_ENV];
  if (ofTheRun !== undefined && existsSync(ofTheRun)) return ofTheRun;
  if (packCache === undefined || !existsSync(packCache)) {
    packCache = mkdtempSync(join(tmpdir(), 'ralph-npm-pack-'));
    removeWhenTheFileEnds(packCache);
  }
  return packCache;
}

/**
 * git as a job finds it on PATH once a test asks for failing or recorded pushes (until then the
 * real git, with no sh started before each of ralph's git calls): the real git, except that a
 * push to an issue's work branch fails while push-failures holds a number above 0 (counted down),
 * and a push to its state branch while state-push-failures does, as a flaky network would; each
 * push's target is recorded in pushes.log. (origin's own hooks would not do: ralph pushes with
 * hooks off on both sides.)
 */
const FLAKY_GIT = `#!/bin/sh
for arg in "$@"; do
  case "$arg" in push) is_push=1 ;; esac
done
if [ -n "$is_push" ]; then
  for arg in "$@"; do
    ref=$(printf '%s' "$arg" | sed -n 's#^.*\\(ralph/issue-[0-9][0-9]*\\(-state\\)\\{0,1\\}\\)$#refs/heads/\\1#p')
    [ -n "$ref" ] && break
  done
  if [ -n "$ref" ]; then
    echo "$ref" >> '@ROOT@/pushes.log'
    case "$ref" in *-state) counter='@ROOT@/state-push-failures' ;; *) counter='@ROOT@/push-failures' ;; esac
    left=$(cat "$counter" 2>/dev/null || echo 0)
    if [ "$left" -gt 0 ]; then
      echo $((left - 1)) > "$counter"
      echo "fatal: unable to access origin: the network went away" >&2
      exit 128
    fi
  fi
fi
exec '@GIT@' "$@"
`;

export interface FleetRepo {
  root: string;
  origin: string;
  /** Makes origin refuse the next `count` pushes to an issue's work branch (its state branch with `state`); the pushes are recorded from then on. */
  failPushes(count: number, branch?: 'work' | 'state'): void;
  /** Records the pushes to origin from now on (for pushes()). */
  recordPushes(): void;
  /** The refs pushed to origin since failPushes or recordPushes, in order (refused pushes included). */
  pushes(): string[];
  ghBinDir: string;
  ghEnv: { FAKE_GH_DATA: string; FAKE_GH_LOG: string };
  /** A new clone of origin (its default branch checked out); removed by cleanup. */
  cloneJob(): string;
  ghCalls(): FakeGhCall[];
  cleanup(): void;
}

export function withFleetRepo(options: { rc?: string; gh: Record<string, unknown> }): FleetRepo {
  const root = mkdtempSync(join(tmpdir(), 'ralph-fleet-'));
  const origin = join(root, 'origin.git');
  const ghBinDir = join(root, 'bin');
  mkdirSync(ghBinDir);
  symlinkSync(FAKE_GH, join(ghBinDir, 'gh'));
  const ghEnv = { FAKE_GH_DATA: join(root, 'gh.json'), FAKE_GH_LOG: join(root, 'gh.jsonl') };
  writeFileSync(ghEnv.FAKE_GH_DATA, JSON.stringify(options.gh));
  makeOrigin(origin, ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n${options.rc ?? ''}` }));
  const git = (args: string[], cwd = root) => execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  const realGit = findExecutable('git', process.env);
  if (!realGit) throw new Error('git is not on PATH');
  const recordPushes = () => {
    writeFileSync(join(ghBinDir, 'git'), FLAKY_GIT.replaceAll('@ROOT@', root).replaceAll('@GIT@', realGit));
    chmodSync(join(ghBinDir, 'git'), 0o755);
  };
  let clones = 0;
  return {
    root,
    origin,
    failPushes(count, branch = 'work') {
      recordPushes();
      writeFileSync(join(root, branch === 'work' ? 'push-failures' : 'state-push-failures'), `${count}\n`);
    },
    recordPushes,
    pushes: () => (existsSync(join(root, 'pushes.log')) ? readFileSync(join(root, 'pushes.log'), 'utf8').split('\n').filter(Boolean) : []),
    ghBinDir,
    ghEnv,
    cloneJob() {
      const dir = join(root, `job-${++clones}`);
      git(['clone', '-q', origin, dir]);
      return dir;
    },
    ghCalls: () => readFakeGhLog(ghEnv.FAKE_GH_LOG),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The bare origins this process made, by what they were made of (project-templates.ts's key of the seed's tree). */
const originTemplates = new Map<string, string>();

/**
 * A bare repository at `origin` whose main holds `tree` in one commit: pushed from a new project
 * the first time this process makes it, copied from that one after (a bare repository is its
 * objects and refs: the copy is the same repository, made without git's seven processes).
 */
function makeOrigin(origin: string, tree: Record<string, string>): void {
  const key = templateKey(tree, true);
  const kept = originTemplates.get(key);
  if (kept !== undefined && existsSync(kept)) {
    cpSync(kept, origin, { recursive: true, verbatimSymlinks: true });
    return;
  }
  const seed = tmpProject(tree, { git: true });
  const git = (args: string[], cwd: string) => execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  git(['init', '-q', '--bare', '-b', 'main', origin], seed.dir);
  git(['push', '-q', origin, 'main'], seed.dir);
  seed.cleanup();
  const store = mkdtempSync(join(tmpdir(), 'ralph-fleet-origin-'));
  removeWhenTheFileEnds(store);
  cpSync(origin, join(store, 'origin.git'), { recursive: true, verbatimSymlinks: true });
  originTemplates.set(key, join(store, 'origin.git'));
}

/** The issue the job tests work on. */
export const FLEET_ISSUE = {
  number: 7,
  title: 'Add the work file',
  body: 'Please add work.txt.',
  labels: [{ name: 'ralph' }],
  updatedAt: '2026-12-01T10:00:00Z',
};

export interface FleetFixtures {
  repo: FleetRepo;
  claude: FakeClaude;
}

/** Per test: a fleet repo with its fake gh and a fake claude (as many as the test makes), removed after the test. */
export function useFleetFixtures(): (scenario: FakeScenario, options: { rc?: string; gh: Record<string, unknown> }) => FleetFixtures {
  const made: FleetFixtures[] = [];
  afterEach(() => {
    for (const fixtures of made.splice(0)) {
      fixtures.repo.cleanup();
      fixtures.claude.cleanup();
    }
  });
  return (scenario, options) => {
    const fixtures = { claude: withFakeClaude(scenario), repo: withFleetRepo(options) };
    made.push(fixtures);
    return fixtures;
  };
}
