// The fake `claude` bundled into one file for `npm test` (tests/helpers/fake-claude-bundle.ts)
// behaves as the fixture does, finds its recordings beside the fixture, and is made again when
// the fixture changes.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useCleanups } from '../../helpers/cleanups.js';
import { bundleFakeClaude, bundleFakeCli } from '../../helpers/fake-claude-bundle.js';
import { FAKE_CLIS, type FakeCli } from '../../helpers/fake-cli-paths.js';
import { FAKE_CLAUDE_DIR, replayRecording } from '../../helpers/fake-claude.js';
import { readFakeGhLog } from '../../helpers/fake-gh-log.js';

const cleanups = useCleanups();

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-bundle-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const project = mkdtempSync(join(tmpdir(), 'fake-bundle-project-'));
// The bundles of the tests here that only run them, made once for the file (a test that changes
// a bundle, or bundles a changed fixture, makes its own): each fake in a folder of its own, as the
// global setup keeps them (making a bundle removes the other ones in its folder).
const sharedBundles = mkdtempSync(join(tmpdir(), 'fake-bundles-'));
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(sharedBundles, { recursive: true, force: true });
});

/** The fixture's bundle (the fake claude's with 'claude'), made once for this file. */
function bundledOnce(cli: FakeCli | 'claude'): Promise<string> {
  if (cli === 'claude') return bundleFakeClaude(FAKE_CLAUDE_DIR, join(sharedBundles, 'claude'));
  return bundleFakeCli(cli, join(sharedBundles, `${basename(cli.dir)}-${cli.entry}`));
}

/** One call of `claude` (an executable path) with a scenario and a state folder of its own; the pid it prints is left out. */
function call(claude: string, scenario: object, args: string[]): string {
  const env = {
    ...process.env,
    FAKE_CLAUDE_SCENARIO_JSON: JSON.stringify(scenario),
    FAKE_CLAUDE_STATE_DIR: tempDir(),
    FAKE_CLAUDE_SEED: '7',
    FAKE_CLAUDE_NOW: '2026-11-30T03:10:00Z',
  };
  return execFileSync(claude, args, { cwd: project, env, input: '', encoding: 'utf8' }).replace(/claude-socks\/\d+/g, 'claude-socks/PID');
}

/** `claude --version`, its state (the call log) in a folder of its own. */
function version(claude: string): string {
  return execFileSync(claude, ['--version'], { env: { ...process.env, FAKE_CLAUDE_STATE_DIR: tempDir() }, encoding: 'utf8' });
}

/** A preload that notes each Node start in `file`, for NODE_OPTIONS. */
function nodeStartCounter(): { env: Record<string, string>; starts: () => number } {
  const dir = tempDir();
  const file = join(dir, 'starts');
  writeFileSync(join(dir, 'count.cjs'), `require('node:fs').appendFileSync(${JSON.stringify(file)}, 'start\\n');\n`);
  return {
    env: { NODE_OPTIONS: `--require=${join(dir, 'count.cjs')}` },
    starts: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0),
  };
}

describe('the bundled fake claude', () => {
  it('prints what the fixture prints, and replays the recordings kept beside the fixture', async () => {
    const bundled = await bundledOnce('claude');
    expect(readFileSync(bundled, 'utf8')).not.toContain("from './");
    // Some tests run the fake as another user.
    expect(statSync(dirname(bundled)).mode & 0o777).toBe(0o755);
    const source = join(FAKE_CLAUDE_DIR, 'claude');
    const args = ['-p', 'hello', '--output-format', 'stream-json', '--verbose'];
    const plain = { calls: [{ resultText: 'Done.', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }] };
    expect(call(bundled, plain, args)).toBe(call(source, plain, args));
    expect(call(bundled, { calls: [{ replay: 'happy_json' }] }, ['-p', 'x', '--output-format', 'json'])).toBe(replayRecording('happy_json').stdout);
  });

  it('is made once for a fixture, and again, in place of the old one, when a file of the fixture changes', async () => {
    const cache = tempDir();
    const fixture = join(tempDir(), 'fake-claude');
    cpSync(FAKE_CLAUDE_DIR, fixture, { recursive: true });
    const first = await bundleFakeClaude(fixture, cache);
    writeFileSync(first, '#!/usr/bin/env node\nprocess.stdout.write("kept");\n');
    expect(await bundleFakeClaude(fixture, cache)).toBe(first);
    expect(version(first)).toBe('kept');

    writeFileSync(join(fixture, 'help.mjs'), `${readFileSync(join(fixture, 'help.mjs'), 'utf8')}\n// changed\n`);
    const second = await bundleFakeClaude(fixture, cache);
    expect(dirname(second)).not.toBe(dirname(first));
    expect(readdirSync(cache)).toEqual([basename(dirname(second))]);
    expect(version(second)).toMatch(/\(Claude Code\)/);
  });

  it('refuses a fixture that imports a computed path, which the bundle could not carry', async () => {
    const fixture = join(tempDir(), 'fake-claude');
    cpSync(FAKE_CLAUDE_DIR, fixture, { recursive: true });
    writeFileSync(
      join(fixture, 'help.mjs'),
      `${readFileSync(join(fixture, 'help.mjs'), 'utf8')}\nexport const later = (name) => import(\`./\${name}.mjs\`);\n`,
    );
    await expect(bundleFakeClaude(fixture, tempDir())).rejects.toThrow(/imports a computed path .*import each module by its literal path/);
  });
});

describe("the bundled fakes' compiled code", () => {
  /** Whether plain node takes the cache beside the script in `dir` for its code. */
  const cacheTaken = (dir: string, script: string) =>
    execFileSync(
      process.execPath,
      [
        '-e',
        "const fs = require('node:fs'); const s = new (require('node:vm').Script)(fs.readFileSync(process.argv[1], 'utf8'), { cachedData: fs.readFileSync(process.argv[1] + '.v8cache') }); process.stdout.write(String(!s.cachedDataRejected))",
        join(dir, script),
      ],
      { encoding: 'utf8' },
    ) === 'true';

  it('is kept from a call made when the bundle is, and taken by the next start; without it the fake answers the same', async () => {
    const claude = await bundleFakeClaude(FAKE_CLAUDE_DIR, tempDir());
    const gh = await bundledOnce(FAKE_CLIS.TEST_FAKE_GH_BIN);
    for (const [bundled, script] of [
      [claude, 'claude.script.js'],
      [gh, 'gh.script.js'],
    ] as const) {
      // More than the script's own text: the functions the call ran, compiled.
      expect(statSync(join(dirname(bundled), `${script}.v8cache`)).size).toBeGreaterThan(statSync(join(dirname(bundled), script)).size);
      expect(cacheTaken(dirname(bundled), script)).toBe(true);
    }
    const args = ['-p', 'hello', '--output-format', 'stream-json', '--verbose'];
    const plain = { calls: [{ resultText: 'Done.', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }] };
    const withCache = call(claude, plain, args);
    rmSync(join(dirname(claude), 'claude.script.js.v8cache'));
    expect(call(claude, plain, args)).toBe(withCache);
    expect(withCache).toBe(call(join(FAKE_CLAUDE_DIR, 'claude'), plain, args));
  });
});

describe("the bundled fake claude's --version", () => {
  /** Two calls of `claude args` sharing a state folder: their output, and the log's records without pids and times. */
  function twoCalls(claude: string, args: string[], env: Record<string, string>): { stdout: string[]; records: unknown[] } {
    const state = tempDir();
    const scenario = join(state, 'scenario.json');
    writeFileSync(scenario, JSON.stringify({ calls: [{ resultText: 'Done.' }] }));
    const callEnv = {
      ...process.env,
      FAKE_CLAUDE_SCENARIO: scenario,
      FAKE_CLAUDE_STATE_DIR: state,
      FAKE_CLAUDE_LOG_ENV: 'EXTRA_ONE, EXTRA_TWO,,MISSING_ONE',
      EXTRA_ONE: 'one',
      EXTRA_TWO: '',
      RALPH_FROM_THE_RUN: 'loop 3',
      ANTHROPIC_API_KEY: 'sk-ant-never-logged',
      IS_SANDBOX: '1',
      ...env,
    };
    const stdout: string[] = [];
    for (let i = 0; i < 2; i++) {
      const result = spawnSync(claude, args, { cwd: project, env: callEnv, input: '', encoding: 'utf8' });
      expect(result.status).toBe(0);
      stdout.push(result.stdout);
      const lines = readFileSync(join(state, 'calls.jsonl'), 'utf8').trim().split('\n');
      const start = JSON.parse(lines.at(-2)!) as { pid: number; ppid: number };
      // The record names the process that was started, and the test as its parent.
      expect([start.pid, start.ppid]).toEqual([result.pid, process.pid]);
    }
    const records = readFileSync(join(state, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .map(({ pid: _pid, ppid: _ppid, startedAt, endedAt, ...rest }) => ({ ...rest, at: typeof (startedAt ?? endedAt) }));
    return { stdout, records };
  }

  it('is answered without a Node start, with the output and the call log the Node program gives', async () => {
    const bundled = await bundledOnce('claude');
    const source = join(FAKE_CLAUDE_DIR, 'claude');
    for (const [args, env] of [
      [['--version'], {}],
      [['-v'], { FAKE_CLAUDE_VERSION: '2.1.400' }],
      [['--version'], { FAKE_CLAUDE_PROFILE: '1.0.31' }],
    ] as Array<[string[], Record<string, string>]>) {
      const counter = nodeStartCounter();
      const fast = twoCalls(bundled, args, { ...env, ...counter.env });
      expect(counter.starts()).toBe(0);
      const slow = twoCalls(source, args, { ...env, ...counter.env });
      expect(counter.starts()).toBe(2);
      expect(fast).toEqual(slow);
      expect(fast.records[0]).toMatchObject({
        index: 0,
        argv: args,
        env: { ANTHROPIC_API_KEY: 'set', EXTRA_ONE: 'one', EXTRA_TWO: '', RALPH_FROM_THE_RUN: 'loop 3' },
      });
      expect(fast.records[3]).toMatchObject({ index: 1, phase: 'end', exitCode: 0 });
    }
  });

  it('leaves to the Node program what sh cannot answer as it would: a profile in the scenario, a value JSON must escape, any other call', async () => {
    const bundled = await bundledOnce('claude');
    const source = join(FAKE_CLAUDE_DIR, 'claude');
    for (const [args, env] of [
      [['--version'], { FAKE_CLAUDE_SCENARIO_JSON: JSON.stringify({ defaults: { profile: '2.0.20' } }) }],
      [['--version'], { RALPH_QUOTED: 'say "hi"\n' }],
      [['--version'], { FAKE_CLAUDE_WITHOUT_FLAGS: '--version' }],
      [['--version', '--verbose'], {}],
      [['-p', 'hello'], {}],
    ] as Array<[string[], Record<string, string>]>) {
      const counter = nodeStartCounter();
      const viaBundle = spawnSync(bundled, args, {
        cwd: project,
        env: { ...process.env, FAKE_CLAUDE_STATE_DIR: tempDir(), ...env, ...counter.env },
        input: '',
        encoding: 'utf8',
      });
      expect(counter.starts()).toBe(1);
      const viaSource = spawnSync(source, args, {
        cwd: project,
        env: { ...process.env, FAKE_CLAUDE_STATE_DIR: tempDir(), ...env },
        input: '',
        encoding: 'utf8',
      });
      expect([viaBundle.status, viaBundle.stdout.replace(/"session_id":"[^"]*"/g, '')]).toEqual([
        viaSource.status,
        viaSource.stdout.replace(/"session_id":"[^"]*"/g, ''),
      ]);
    }
  });
});

describe('the bundled fake gh and bd', () => {
  /** One call of a fake gh (an executable path) against a data file of its own: its stdout and the call it logged. */
  function gh(path: string, args: string[]): { stdout: string; log: string } {
    const dir = tempDir();
    const env = { ...process.env, FAKE_GH_DATA: join(dir, 'gh.json'), FAKE_GH_LOG: join(dir, 'gh.jsonl') };
    writeFileSync(env.FAKE_GH_DATA, JSON.stringify({ issues: [{ number: 7, title: 'Seven', body: 'b', labels: [], state: 'OPEN' }] }));
    const stdout = execFileSync(path, args, { cwd: project, env, input: '', encoding: 'utf8' });
    return { stdout, log: readFileSync(env.FAKE_GH_LOG, 'utf8') };
  }

  it('answer as their fixtures do, each a single script', async () => {
    for (const cli of Object.values(FAKE_CLIS)) {
      const bundled = await bundledOnce(cli);
      expect(readFileSync(join(dirname(bundled), `${cli.entry}.script.js`), 'utf8')).not.toMatch(/from '\.{1,2}\//);
      if (cli.entry !== 'gh') continue;
      const source = join(cli.dir, cli.entry);
      for (const args of [
        ['issue', 'view', '7', '--json', 'number,title'],
        ['repo', 'view'],
      ])
        expect(gh(bundled, args)).toEqual(gh(source, args));
    }
  });

  it('answer the calls made before any GitHub work without a Node start, as their fixtures do, and leave the rest to Node', async () => {
    const counter = nodeStartCounter();
    /** One call with its own data file: what it printed, its exit code, the line it logged. */
    const ghCall = (path: string, args: string[], data: object) => {
      const dir = tempDir();
      // No answers kept from before (the run's, which another test file may have filled): each call here is its first.
      const env = { ...process.env, ...counter.env, FAKE_GH_ANSWERS: undefined, FAKE_GH_DATA: join(dir, 'gh.json'), FAKE_GH_LOG: join(dir, 'gh.jsonl') };
      writeFileSync(env.FAKE_GH_DATA, JSON.stringify(data));
      const result = spawnSync(path, args, { cwd: project, env, input: '', encoding: 'utf8' });
      return {
        status: result.status,
        stdout: result.stdout,
        stderr: result.stderr,
        log: existsSync(env.FAKE_GH_LOG) ? readFileSync(env.FAKE_GH_LOG, 'utf8') : '',
      };
    };
    const plainData = { issues: [{ number: 7, title: 'Seven', body: 'b', labels: [], state: 'OPEN' }] };
    const fast = [
      ['auth', 'status'],
      ['repo', 'view', '--json', 'defaultBranchRef'],
    ];
    const fleetFast = [['--version'], ['repo', 'view', '--json', 'nameWithOwner,viewerPermission,defaultBranchRef'], ...fast];
    for (const [variable, calls] of [
      ['TEST_FAKE_GH_BIN', fast],
      ['TEST_FAKE_GH_FLEET_BIN', fleetFast],
    ] as const) {
      const cli = FAKE_CLIS[variable];
      const bundled = await bundledOnce(cli);
      const source = join(cli.dir, cli.entry);
      for (const args of calls) {
        const before = counter.starts();
        const answer = ghCall(bundled, args, plainData);
        expect(counter.starts(), args.join(' ')).toBe(before);
        expect(answer).toEqual(ghCall(source, args, plainData));
        expect(answer.log).toContain('"argv"');
      }
      // Data that changes the answer, or a call sh does not know: the Node program answers.
      for (const [args, data] of [
        [['auth', 'status'], { authenticated: false }],
        [['repo', 'view'], { defaultBranch: 'trunk', viewerPermission: 'READ' }],
        [['repo', 'view'], { failWith: 'HTTP 502' }],
        [['issue', 'view', '7', '--json', 'number,title'], plainData],
        [['auth', 'status', '--hostname', 'ghe "quoted"'], plainData],
      ] as Array<[string[], object]>) {
        const before = counter.starts();
        const answer = ghCall(bundled, args, data);
        expect(counter.starts(), args.join(' ')).toBe(before + 1);
        expect(answer).toEqual(ghCall(source, args, data));
      }
    }
  });

  it('give again, without a Node start, what their Node program answered to the same call on the same data', async () => {
    const counter = nodeStartCounter();
    const answers = tempDir();
    const issue = { number: 7, title: 'Seven', body: 'b', labels: [{ name: 'ralph' }], state: 'OPEN' };
    for (const variable of ['TEST_FAKE_GH_BIN', 'TEST_FAKE_GH_FLEET_BIN'] as const) {
      const cli = FAKE_CLIS[variable];
      const bundled = await bundledOnce(cli);
      const source = join(cli.dir, cli.entry);
      const dir = tempDir();
      const data = join(dir, 'gh.json');
      const log = join(dir, 'gh.jsonl');
      /** One call on the data file (its log emptied first): the Node starts it took, and what it printed, exited with and logged. */
      const ghCall = (path: string, args: string[], extra: Record<string, string | undefined> = {}, input = '') => {
        rmSync(log, { force: true });
        const before = counter.starts();
        const env = { ...process.env, ...counter.env, FAKE_GH_ANSWERS: answers, FAKE_GH_DATA: data, FAKE_GH_LOG: log, ...extra };
        const result = spawnSync(path, args, { cwd: project, env, input, encoding: 'utf8' });
        const answer = { status: result.status, stdout: result.stdout, stderr: result.stderr, log: readFakeGhLog(log) };
        return { starts: counter.starts() - before, answer };
      };
      writeFileSync(data, JSON.stringify({ issues: [issue] }));
      for (const args of [
        ['issue', 'view', '7', '--json', 'number,title,labels'],
        ['issue', 'view', '8', '--json', 'number'],
        ['issue', 'list', '--label', 'ralph', '--json', 'number'],
      ]) {
        const fromSource = ghCall(source, args, { FAKE_GH_ANSWERS: undefined }).answer;
        expect(ghCall(bundled, args)).toEqual({ starts: 1, answer: fromSource });
        expect(ghCall(bundled, args), args.join(' ')).toEqual({ starts: 0, answer: fromSource });
      }
      expect(ghCall(bundled, ['issue', 'view', '8', '--json', 'number']).answer).toMatchObject({
        status: 1,
        stdout: '',
        stderr: expect.stringContaining('Could not resolve'),
      });

      // Other data: the program answers again, and its new answer is kept.
      writeFileSync(data, JSON.stringify({ issues: [{ ...issue, title: 'Renamed' }] }));
      const renamed = ['issue', 'view', '7', '--json', 'number,title,labels'];
      expect(ghCall(bundled, renamed)).toEqual({ starts: 1, answer: ghCall(source, renamed, { FAKE_GH_ANSWERS: undefined }).answer });
      expect(ghCall(bundled, renamed).answer.stdout).toContain('Renamed');
      expect(ghCall(bundled, renamed).starts).toBe(0);

      // A body on stdin changes no answer: kept too, and each call's body logged as the program logs it.
      const comment = ['issue', 'comment', '7', '--body-file', '-'];
      const body = 'a body — with "quotes", a \\ and a tab\t\n';
      const commented = ghCall(source, comment, { FAKE_GH_ANSWERS: undefined }, body).answer;
      expect(commented.log).toEqual([{ argv: comment, cwd: realpathSync(project), stdin: body }]);
      expect(ghCall(bundled, comment, {}, body)).toEqual({ starts: 1, answer: commented });
      expect(ghCall(bundled, comment, {}, body)).toEqual({ starts: 0, answer: commented });
      expect(ghCall(bundled, comment, {}, 'another body')).toEqual({
        starts: 0,
        answer: { ...commented, log: [{ ...commented.log[0], stdin: 'another body' }] },
      });
      // A request on stdin (--input), or no folder to keep answers in: the program answers each time.
      const pull = ['api', '--method', 'POST', 'repos/{owner}/{repo}/pulls', '--input', '-'];
      for (const head of ['one', 'two']) expect(ghCall(bundled, pull, {}, JSON.stringify({ head, base: 'main', title: head })).starts).toBe(1);
      for (let i = 0; i < 2; i++) expect(ghCall(bundled, ['issue', 'view', '7'], { FAKE_GH_ANSWERS: undefined }).starts).toBe(1);

      // The data file changed while the program ran: its answer is not kept.
      const racing = tempDir();
      writeFileSync(
        join(racing, 'node'),
        `#!/bin/sh\nprintf '%s' '${JSON.stringify({ issues: [{ ...issue, title: 'Changed' }] })}' > '${data}'\nexec '${process.execPath}' "$@"\n`,
      );
      chmodSync(join(racing, 'node'), 0o755);
      writeFileSync(data, JSON.stringify({ issues: [issue] }));
      const raced = ['issue', 'view', '7', '--json', 'title'];
      expect(ghCall(bundled, raced, { PATH: `${racing}:${process.env.PATH}` }).answer.stdout).toBe('{"title":"Changed"}\n');
      writeFileSync(data, JSON.stringify({ issues: [issue] }));
      expect(ghCall(bundled, raced)).toMatchObject({ starts: 1, answer: { stdout: '{"title":"Seven"}\n' } });
    }
  });

  it("codex, gemini and opencode answer ralph's --version without a Node start, as their fixtures do", async () => {
    const counter = nodeStartCounter();
    for (const variable of ['TEST_FAKE_CODEX_BIN', 'TEST_FAKE_GEMINI_BIN', 'TEST_FAKE_OPENCODE_BIN'] as const) {
      const cli = FAKE_CLIS[variable];
      const bundled = await bundledOnce(cli);
      const answer = (path: string, env: Record<string, string | undefined>) => {
        const result = spawnSync(path, ['--version'], { cwd: project, env: { ...process.env, ...counter.env, ...env }, input: '', encoding: 'utf8' });
        return { status: result.status, stdout: result.stdout, stderr: result.stderr };
      };
      const state = { FAKE_CODEX_STATE_DIR: join(tempDir(), 'made'), FAKE_AGENT_STATE_DIR: tempDir() };
      const before = counter.starts();
      const fast = answer(bundled, state);
      expect(counter.starts(), cli.entry).toBe(before);
      expect(fast).toEqual(answer(join(cli.dir, cli.entry), state));
      expect(fast.stdout).toMatch(/\d+\.\d+\.\d+\n$/);
      if (cli.entry === 'codex') {
        expect(existsSync(state.FAKE_CODEX_STATE_DIR)).toBe(true);
        // Without its state folder the fake codex fails, as its Node program says.
        const unset = { FAKE_CODEX_STATE_DIR: undefined };
        expect(answer(bundled, unset)).toEqual(answer(join(cli.dir, cli.entry), unset));
        expect(answer(bundled, unset).status).toBe(70);
      }
    }
  });

  it("the fleet's fake gh is made again when the fake gh it imports changes", async () => {
    const cache = tempDir();
    const fixtures = tempDir();
    cpSync(FAKE_CLIS.TEST_FAKE_GH_FLEET_BIN.dir, join(fixtures, 'fake-gh-fleet'), { recursive: true });
    cpSync(FAKE_CLIS.TEST_FAKE_GH_BIN.dir, join(fixtures, 'fake-gh'), { recursive: true });
    const cli = { ...FAKE_CLIS.TEST_FAKE_GH_FLEET_BIN, dir: join(fixtures, 'fake-gh-fleet'), imports: [join(fixtures, 'fake-gh')] };
    const first = await bundleFakeCli(cli, cache);
    expect(await bundleFakeCli(cli, cache)).toBe(first);
    const imported = join(fixtures, 'fake-gh', 'gh.mjs');
    writeFileSync(imported, `${readFileSync(imported, 'utf8')}\nglobalThis.fakeGhChanged = true;\n`);
    const second = await bundleFakeCli(cli, cache);
    expect(dirname(second)).not.toBe(dirname(first));
    // The program is beside the sh entry that runs it, its code beside it.
    expect(readFileSync(`${second}.cjs`, 'utf8')).toContain('gh.script.js');
    expect(readFileSync(join(dirname(second), 'gh.script.js'), 'utf8')).toContain('fakeGhChanged');
  });
});
