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
