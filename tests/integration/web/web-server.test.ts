// The web view's server over real HTTP, against a recorded Bash-written `.ralph/` (and state
// files of ours written into it): every request rule, the headers, the event stream with its
// updates when a state file changes, agent text delivered as data, and a close that leaves
// nothing listening.

import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { saveLedgerPlan } from '../../../lib/state/plan-memory-file.js';
import { startWebView, MAX_CLIENTS, type WebView } from '../../../lib/web/web-server.js';
import { projectView } from '../../helpers/project-view.js';
import { ourStatus, stateProject, type StateProject } from '../../unit/monitor/fixture-state.js';

const TOKEN = 'test-token-0123456789';

let project: StateProject | undefined;
let web: WebView | undefined;
afterEach(async () => {
  await web?.close();
  web = undefined;
  project?.cleanup();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(path: string, options: { method?: string; host?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: web!.address.port,
        path,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? `127.0.0.1:${web!.address.port}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** An open /events stream: each `state` event's document, as it arrives. */
function openEvents(): Promise<{
  next(predicate?: (state: any) => boolean): Promise<any>;
  received(): number;
  close(): void;
  headers: Record<string, unknown>;
}> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: web!.address.port, path: `/events?token=${TOKEN}`, headers: { host: `127.0.0.1:${web!.address.port}` } },
      (res) => {
        let buffer = '';
        const events: any[] = [];
        const waiters: Array<{ predicate: (state: any) => boolean; resolve: (state: any) => void }> = [];
        const deliver = () => {
          for (let i = 0; i < waiters.length; i++) {
            const found = events.find((e) => waiters[i]!.predicate(e));
            if (found) {
              waiters[i]!.resolve(found);
              waiters.splice(i--, 1);
            }
          }
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.split('\n').find((line) => line.startsWith('data: '));
            if (block.includes('event: state') && data) events.push(JSON.parse(data.slice(6)));
          }
          deliver();
        });
        resolve({
          headers: res.headers,
          received: () => events.length,
          next: (predicate = () => true) =>
            new Promise((done) => {
              waiters.push({ predicate, resolve: done });
              deliver();
            }),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function serve(fixture: 'midrun' | 'completed' = 'midrun', host?: string) {
  project = stateProject(fixture);
  web = await startWebView({ projectDir: project.dir, view: projectView(project.dir), token: TOKEN, ...(host ? { host } : {}) });
  return web;
}

describe('the web view server', () => {
  it('prints an address on loopback with a free port and its token', async () => {
    await serve();
    expect(web!.url).toBe(`http://127.0.0.1:${web!.address.port}/?token=${TOKEN}`);
    expect(web!.address.port).toBeGreaterThan(0);
  });

  it('makes a new random token each start when none is given', async () => {
    project = stateProject('midrun');
    const first = await startWebView({ projectDir: project.dir, view: projectView(project.dir) });
    const second = await startWebView({ projectDir: project.dir, view: projectView(project.dir) });
    try {
      const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
      expect(tokenOf(first.url)).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(tokenOf(first.url)).not.toBe(tokenOf(second.url));
      expect(first.address.port).not.toBe(second.address.port);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('serves the page, its script and its style with the token, and the page links them with it', async () => {
    await serve();
    const page = await get(`/?token=${TOKEN}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain(`<script type="module" src="/app.js?token=${TOKEN}"></script>`);
    expect(page.body).toContain(`href="/app.css?token=${TOKEN}"`);
    // No inline script: the only script element loads the page's own file.
    expect(page.body.match(/<script\b[^>]*>/g)).toEqual([`<script type="module" src="/app.js?token=${TOKEN}">`]);
    expect(page.body).not.toMatch(/\son\w+=/);
    expect((await get(`/app.js?token=${TOKEN}`)).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get(`/app.css?token=${TOKEN}`)).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it.each(['/', '/app.js', '/app.css', '/events', '/state.json'])('refuses %s without the right token', async (path) => {
    await serve();
    for (const query of ['', '?token=', '?token=nope', `?token=${TOKEN.toUpperCase()}`]) {
      const answer = await get(`${path}${query}`);
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain('ralph</span>');
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
  });

  it('refuses a Host that is not the address served (DNS rebinding)', async () => {
    await serve();
    for (const host of ['attacker.example', `attacker.example:${web!.address.port}`, `127.0.0.1:${web!.address.port + 1}`]) {
      expect((await get(`/state.json?token=${TOKEN}`, { host })).status).toBe(421);
    }
    expect((await get(`/state.json?token=${TOKEN}`, { host: `localhost:${web!.address.port}` })).status).toBe(200);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])('answers %s with 405, even with the token', async (method) => {
    await serve();
    const answer = await get(`/events?token=${TOKEN}`, { method });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
  });

  it('sends the security headers on every answer, refusals included', async () => {
    await serve();
    for (const path of [`/?token=${TOKEN}`, `/state.json?token=${TOKEN}`, '/', `/nothing?token=${TOKEN}`]) {
      const { headers } = await get(path);
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['cache-control']).toBe('no-store');
      expect(headers['referrer-policy']).toBe('no-referrer');
      expect(headers['content-security-policy']).toContain("script-src 'self'");
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('streams the state on connect, then each change of a state file', async () => {
    await serve();
    const events = await openEvents();
    try {
      expect(events.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      const first = await events.next();
      expect(first.loop.count).toBe(3);
      expect(first.loop.status).toBe('running');
      project!.write('.ralph/status.json', ourStatus({ loop_count: 4, status: 'running' }));
      project!.write(
        '.ralph/logs/metrics.jsonl',
        `${JSON.stringify({ timestamp: '2026-12-06T10:00:00Z', loop: 3, duration: 42, success: true, calls: 1, cost_usd: 0.31, files_changed: 2 })}\n`,
      );
      const next = await events.next((state) => state.loop.count === 4 && state.timeline.length === 1);
      expect(next.timeline[0]).toMatchObject({ loop: 3, durationSeconds: 42, costUsd: 0.31, filesChanged: 2 });
      expect(next.limits).toMatchObject({ costUsd: 1.25, maxCostUsd: 5 });
    } finally {
      events.close();
    }
  });

  it("delivers the agent's markup and escape sequences as plain data, never as markup or control bytes", async () => {
    await serve();
    project!.write(
      '.ralph/live.log',
      '<script>alert("x")</script>\n<img src=x onerror=alert(1)>\n\u001b]0;ralph: ALL TESTS PASSED\u0007\u001b[32m[SUCCESS] All 42 tests passed\u001b[0m\n',
    );
    const events = await openEvents();
    try {
      const state = await events.next((s) => s.live.some((line: string) => line.includes('<script>')));
      expect(state.live).toEqual(expect.arrayContaining(['<script>alert("x")</script>', '<img src=x onerror=alert(1)>', '[SUCCESS] All 42 tests passed']));
      expect(JSON.stringify(state)).not.toContain('\u001b');
      const json = await get(`/state.json?token=${TOKEN}`);
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(json.body).live).toContain('<script>alert("x")</script>');
    } finally {
      events.close();
    }
  });

  it('marks the plan items ralph holds open, ticked with no evidence, and shows the closing summary', async () => {
    project = stateProject('completed');
    const view = projectView(project.dir);
    project.write('.ralph/fix_plan.md', '# Plan\n- [x] Add the parser\n- [x] Write the docs\n');
    saveLedgerPlan(view.paths.ledger!, project.dir, [{ text: 'Add the parser', position: 0 }]);
    project.write('.ralph/status.json', ourStatus({ status: 'completed', run_summary: { lines: ['Run halted: \u001b[31mno progress', '1 of 2 tasks done'] } }));
    web = await startWebView({ projectDir: project.dir, view, token: TOKEN });
    const state = JSON.parse((await get(`/state.json?token=${TOKEN}`)).body);
    expect(state.plan.heldOpen).toEqual([{ text: 'Add the parser', how: 'ticked without measured change' }]);
    expect(state.summary).toEqual(['Run halted: no progress', '1 of 2 tasks done']);
  });

  it('sends an event only after a look that found a change the page shows', async () => {
    project = stateProject('midrun');
    let look: (() => Promise<void>) | undefined;
    let tick = 0;
    // Each look at another moment: a state built again differs at least in its time.
    web = await startWebView({
      projectDir: project.dir,
      view: projectView(project.dir),
      token: TOKEN,
      now: () => ++tick,
      schedule: (run) => ((look = run), () => undefined),
    });
    const events = await openEvents();
    try {
      await events.next();
      await look!();
      project.write('.ralph/logs/ralph.log', '[2026-12-06 10:00:00] [INFO] one more line\n');
      project.write('.ralph/.response_analysis', '{"analysis":{"exit_signal":false}}');
      await look!();
      project.write('.ralph/status.json', ourStatus({ loop_count: 42 }));
      await look!();
      await look!();
      // Events arrive in the order sent: any sent before this one has arrived with it.
      await events.next((state) => state.loop.count === 42);
      expect(events.received()).toBe(2);
    } finally {
      events.close();
    }
  });

  it('updates 20 connected clients at once', async () => {
    await serve();
    const clients = await Promise.all(Array.from({ length: 20 }, () => openEvents()));
    try {
      await Promise.all(clients.map((c) => c.next()));
      expect(web!.clients()).toBe(20);
      project!.write('.ralph/status.json', ourStatus({ loop_count: 9 }));
      const updates = await Promise.all(clients.map((c) => c.next((s) => s.loop.count === 9)));
      expect(updates).toHaveLength(20);
    } finally {
      for (const c of clients) c.close();
    }
  });

  it(`refuses more than ${MAX_CLIENTS} event streams`, async () => {
    await serve();
    const clients = await Promise.all(Array.from({ length: MAX_CLIENTS }, () => openEvents()));
    try {
      expect((await get(`/events?token=${TOKEN}`)).status).toBe(503);
    } finally {
      for (const c of clients) c.close();
    }
  });

  it('answers HEAD /events with the headers alone: it holds no stream open', async () => {
    await serve();
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: web!.address.port, path: `/events?token=${TOKEN}`, method: 'HEAD', headers: { host: `127.0.0.1:${web!.address.port}` } },
        (res) => {
          resolve(res.headers);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(web!.clients()).toBe(0);
  });

  it('closes every stream and stops listening when closed', async () => {
    await serve();
    const events = await openEvents();
    await events.next();
    const port = web!.address.port;
    await web!.close();
    web = undefined;
    await expect(
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/' }, resolve);
        req.on('error', reject);
        req.end();
      }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('names the port when it is taken', async () => {
    await serve();
    const taken = web!.address.port;
    await expect(startWebView({ projectDir: project!.dir, view: projectView(project!.dir), port: taken })).rejects.toThrow(
      `Port ${taken} on 127.0.0.1 is already in use`,
    );
  });
});
