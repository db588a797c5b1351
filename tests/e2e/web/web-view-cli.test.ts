// `ralph-monitor --web` and `ralph --web` as a user runs them: the real bin/ shims over the
// built dist/. One line with the address, the view answering at it, Ctrl+C stopping it, and
// nothing left listening afterwards.

import { closeSync, constants, openSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { stateProject, type StateProject } from '../../unit/monitor/fixture-state.js';

const ADDRESS_LINE = /^Web view: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]{32}))$/m;

let state: StateProject | undefined;
let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
afterEach(() => {
  state?.cleanup();
  project?.cleanup();
  fake?.cleanup();
});

function fetchText(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/' }, () => resolve(false));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    req.end();
  });
}

describe('ralph-monitor --web', () => {
  it('prints one line with its address, serves the run there, and stops on Ctrl+C leaving nothing listening', async () => {
    state = stateProject('completed');
    let seen: { url: string; port: number } | undefined;
    let answer: { status: number; body: string } | undefined;
    const result = await runCli('ralph-monitor', ['--web'], {
      cwd: state.dir,
      onSpawn: (child) => {
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = ADDRESS_LINE.exec(out);
          if (!match || seen) return;
          seen = { url: match[1]!, port: Number(match[2]) };
          const stateUrl = `http://127.0.0.1:${match[2]}/state.json?token=${match[3]}`;
          void fetchText(stateUrl).then((got) => {
            answer = got;
            child.kill('SIGINT');
          });
        });
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([expect.stringMatching(ADDRESS_LINE), 'Web view stopped.']);
    expect(answer!.status).toBe(200);
    expect(JSON.parse(answer!.body).loop).toMatchObject({ count: 6, status: 'completed' });
    expect(await refused(seen!.port)).toBe(true);
  });

  it('says a port already in use in words, from the live views built apart from the entry', async () => {
    state = stateProject('completed');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const result = await runCli('ralph-monitor', ['--web', '--port', String(port)], { cwd: state.dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`Error: Port ${port} on 127.0.0.1 is already in use\nhint: leave out --port for a free one, or name another\n`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it.each([
    [['--port', '8080'], '--port goes with --web'],
    [['--host', '0.0.0.0'], '--host goes with --web'],
    [['--web', '--once'], '--web does not go with --once'],
    [['--web', '--port', '70000'], '--port requires a port number from 1 to 65535'],
  ])('refuses %j with a message naming the flag', async (args, message) => {
    state = stateProject('completed');
    const result = await runCli('ralph-monitor', args, { cwd: state.dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });
});

describe('ralph --web', () => {
  it('serves the live view beside the loop and closes it when the loop ends', async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
    // The agent works until ralph is interrupted: the view is looked at while the loop runs.
    fake = withFakeClaude({ calls: [{ hang: 'beforeResult' }] });
    let port: number | undefined;
    let during: any;
    const result = await runCli('ralph', ['--web'], {
      cwd: project.dir,
      env: { ...fake.env, ...GIT_TEST_ENV },
      onSpawn: (child) => {
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = ADDRESS_LINE.exec(out);
          if (!match || port !== undefined) return;
          port = Number(match[2]);
          const stateUrl = `http://127.0.0.1:${port}/state.json?token=${match[3]}`;
          const look = setInterval(() => {
            if (fake!.runs().length === 0) return;
            clearInterval(look);
            void fetchText(stateUrl).then((got) => {
              during = { status: got.status, state: JSON.parse(got.body) };
              child.kill('SIGINT');
            });
          }, 50);
          child.on('exit', () => clearInterval(look));
        });
      },
    });
    expect(result.code, result.stderr).toBe(130);
    // The address is the first line printed, before the loop's own output.
    expect(result.stdout.split('\n')[0]).toMatch(ADDRESS_LINE);
    expect(during.status).toBe(200);
    expect(during.state.plan).toMatchObject({ done: 0, total: 1, items: [{ text: 'one', done: false }] });
    expect(await refused(port!)).toBe(true);
  });

  it('goes on serving, and the loop goes on, after the agent puts a FIFO in place of fix_plan.md', async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS=Bash\n`, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
    const fifo = project.path('.ralph/fix_plan.md');
    // Were a reader stuck on the FIFO, a writer that comes and goes would free it.
    onTestFinished(() => {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader waits
      }
    });
    fake = withFakeClaude({
      calls: [{ steps: [{ tool: 'Bash', input: { command: 'rm .ralph/fix_plan.md && mkfifo .ralph/fix_plan.md' }, exec: true }], hang: 'beforeResult' }],
    });
    let seen: { warnings: string[] } | undefined;
    const result = await runCli('ralph', ['--web'], {
      cwd: project.dir,
      env: { ...fake.env, ...GIT_TEST_ENV },
      onSpawn: (child) => {
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = ADDRESS_LINE.exec(out);
          if (!match || seen) return;
          const stateUrl = `http://127.0.0.1:${match[2]}/state.json?token=${match[3]}`;
          seen = { warnings: [] };
          // The view answers each look; once it has looked at the FIFO, ralph is stopped.
          const look = async (): Promise<void> => {
            const got = await fetchText(stateUrl);
            seen = JSON.parse(got.body) as { warnings: string[] };
            if (seen.warnings.includes('cannot read fix_plan.md (not a regular file)')) child.kill('SIGINT');
            else setImmediate(() => void look().catch(() => undefined));
          };
          void look().catch(() => undefined);
        });
      },
    });
    expect(result.code, result.stderr).toBe(130);
    expect(seen?.warnings).toContain('cannot read fix_plan.md (not a regular file)');
  });

  it('refuses --web-port without --web, and --web with --monitor', async () => {
    project = tmpProject(ralphProjectTree(), { git: true });
    const lone = await runCli('ralph', ['--web-port', '8080'], { cwd: project.dir });
    expect(lone.code).toBe(1);
    expect(lone.stderr).toContain('--web-port goes with --web');
    const both = await runCli('ralph', ['--web', '--monitor'], { cwd: project.dir });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--web does not go with --monitor');
  });
});
