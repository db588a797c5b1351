// The web view under load from clients that do not play fair: a flood of connections (opening one
// needs no token) and an event stream that never reads. `ralph --web` serves from the loop's own
// process, so neither may use up its file descriptors or its memory.

import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CONNECTIONS, startWebView, type WebView } from '../../../lib/web/web-server.js';
import { projectView } from '../../helpers/project-view.js';
import { stateProject, type StateProject } from '../../unit/monitor/fixture-state.js';

const TOKEN = 'test-token-0123456789';

let project: StateProject | undefined;
let web: WebView | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await web?.close();
  web = undefined;
  project?.cleanup();
});

/** A raw connection: resolves once connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** One request on `socket`: 'answered' when a status line came back, 'closed' when the server closed it first. */
function ask(socket: Socket, port: number, path: string): Promise<'answered' | 'closed'> {
  return new Promise((resolve) => {
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.startsWith('HTTP/1.1 ')) resolve('answered');
    });
    socket.on('error', () => resolve('closed'));
    socket.on('close', () => resolve(seen.startsWith('HTTP/1.1 ') ? 'answered' : 'closed'));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  });
}

describe('the web view under load', () => {
  it(`keeps at most ${MAX_CONNECTIONS} connections open: one past that is closed unanswered`, async () => {
    project = stateProject('midrun');
    web = await startWebView({ projectDir: project.dir, view: projectView(project.dir), token: TOKEN });
    const port = web.address.port;
    const extra = 5;
    // All open before any request: the server holds each of them (keep-alive) until it is closed.
    const all = await Promise.all(Array.from({ length: MAX_CONNECTIONS + extra }, () => open(port)));
    const outcomes = await Promise.all(all.map((socket) => ask(socket, port, `/state.json?token=${TOKEN}`)));
    expect(outcomes.filter((o) => o === 'answered')).toHaveLength(MAX_CONNECTIONS);
    expect(outcomes.filter((o) => o === 'closed')).toHaveLength(extra);
    // Once the flood is gone, the view answers again.
    for (const socket of sockets.splice(0)) socket.destroy();
    let answer: 'answered' | 'closed' = 'closed';
    // The server learns of each close in turn: a new connection is taken once it has.
    for (let attempt = 0; attempt < 1000 && answer === 'closed'; attempt++) answer = await ask(await open(port), port, `/state.json?token=${TOKEN}`);
    expect(answer).toBe('answered');
  });
});

describe('an event stream that does not read', () => {
  it('is sent the newest state when it reads again, not every state it missed', async () => {
    project = stateProject('midrun');
    let look: (() => Promise<void>) | undefined;
    web = await startWebView({
      projectDir: project.dir,
      view: projectView(project.dir),
      token: TOKEN,
      schedule: (run) => ((look = run), () => undefined),
    });
    const port = web.address.port;
    // About a megabyte of state a change: the plan's 500 items, long ones.
    const planOf = (version: number) => Array.from({ length: 500 }, (_, i) => `- [ ] v${version} item ${i} ${'x'.repeat(2000)}`).join('\n');
    const changes = 60;
    const socket = await open(port);
    let text = '';
    const versions: number[] = [];
    let connected: () => void;
    const first = new Promise<void>((resolve) => (connected = resolve));
    const newest = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n')) {
          const event = text.slice(0, end);
          text = text.slice(end + 2);
          if (!event.includes('event: state')) continue;
          connected();
          const version = /"text":"v(\d+) item 0 /.exec(event);
          if (version) versions.push(Number(version[1]));
          if (version && Number(version[1]) === changes) resolve();
        }
      }),
    );
    socket.write(`GET /events?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await first;
    // Paused: what the server sends fills the socket's buffers and then waits.
    socket.pause();
    for (let version = 1; version <= changes; version++) {
      project.write('.ralph/fix_plan.md', planOf(version));
      await look!();
      // A turn of the event loop between looks, as between two ticks of the timer.
      await new Promise((resolve) => setImmediate(resolve));
    }
    socket.resume();
    await newest;
    expect(versions.at(-1)).toBe(changes);
    // Those the buffers held arrive, then the newest: the ones in between were never queued.
    expect(versions.length).toBeLessThan(changes / 2);
  });
});
