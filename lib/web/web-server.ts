// The web view's server: `ralph-monitor --web` and `ralph --web`. Node's own HTTP server, bound to
// loopback unless told otherwise, a new random token each start, every request checked by
// web-rules.ts before anything is read. The page, its script and its style are files shipped in
// the package (web/); nothing is built or fetched at run time. Live updates go out as
// server-sent events: the whole state on connect, then again each time a state file changed,
// looked for a few times a second with the monitor's stat-only loader, once for all clients.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ViewConfig } from '../config/view-config.js';
import { RalphError } from '../errors.js';
import { PACKAGE_ROOT } from '../platform/package-root.js';
import { DEFAULT_WEB_HOST } from './web-address.js';
import { decideRequest, displayUrl, responseHeaders, type ServedAddress, type WebRoute } from './web-rules.js';
import { createWebStateSource, type WebState } from './web-state.js';

/** How often the state files are looked at (a stat each; a changed one is read). */
export const WEB_POLL_MS = 250;
/** A comment line keeps idle connections (and the proxies between) open. */
const HEARTBEAT_MS = 15_000;
/** More clients than this are refused: a view is watched by a few people, not a crowd. */
export const MAX_CLIENTS = 64;
/**
 * Open connections at most, event streams and page loads together. Opening one needs no token,
 * and `ralph --web` serves from the loop's own process: past this a new connection is closed at
 * once, so a flood of them cannot use up the loop's file descriptors (it would fail its next open).
 */
export const MAX_CONNECTIONS = 2 * MAX_CLIENTS;

export interface WebViewOptions {
  projectDir: string;
  view: ViewConfig;
  host?: string;
  /** 0 or absent: a free port. */
  port?: number;
  now?: () => number;
  /** The token (tests); a new random one otherwise. */
  token?: string;
  /** Where web/ is (tests); the package's own otherwise. */
  assetsDir?: string;
  /** What runs the look at the state files (tests run it by hand); every WEB_POLL_MS otherwise. */
  schedule?: LookSchedule;
}

/** Runs `look` from now on, until the returned stop is called. */
export type LookSchedule = (look: () => Promise<void>) => () => void;

const everyPoll: LookSchedule = (look) => {
  const timer = setInterval(() => void look(), WEB_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
};

export interface WebView {
  /** The address to open, token included. */
  url: string;
  address: ServedAddress;
  /** Connected event streams. */
  clients(): number;
  close(): Promise<void>;
}

interface Assets {
  page: string;
  script: string;
  style: string;
  icon: string;
}

export async function startWebView(options: WebViewOptions): Promise<WebView> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const expected = Buffer.from(token);
  const tokenMatches = (given: string) => {
    const candidate = Buffer.from(given);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  };
  const assets = readAssets(options.assetsDir ?? join(PACKAGE_ROOT, 'web'));
  const source = createWebStateSource({ projectDir: options.projectDir, view: options.view, now: options.now ?? Date.now });
  const streams = new Set<ServerResponse>();
  /** Streams that missed an update while their buffer was full. */
  const behind = new Set<ServerResponse>();
  let current: string = JSON.stringify((await source.load()).state satisfies WebState);
  const served: ServedAddress = { host: options.host ?? DEFAULT_WEB_HOST, port: 0 };

  // node:http loaded here, not with the module: bundled, this module shares a file with every run of
  // ralph, and only `--web` serves anything.
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    const decision = decideRequest({ method: request.method ?? '', url: request.url ?? '', host: request.headers.host }, served, tokenMatches);
    if (!decision.ok) {
      const headers = responseHeaders();
      if (decision.allow) headers.Allow = decision.allow;
      response.writeHead(decision.status, headers).end(request.method === 'HEAD' ? undefined : `${decision.message}\n`);
      return;
    }
    if (decision.route === 'events') return openStream(request, response);
    const body = bodyOf(decision.route, decision.token);
    response.writeHead(200, { ...responseHeaders(decision.route), 'Content-Length': String(Buffer.byteLength(body)) });
    response.end(request.method === 'HEAD' ? undefined : body);
  });

  server.maxConnections = MAX_CONNECTIONS;

  function bodyOf(route: Exclude<WebRoute, 'events'>, requestToken: string): string {
    switch (route) {
      case 'page':
        // The token the page was opened with goes into its asset links (an attribute value,
        // escaped; it is the server's own token, which matched).
        return assets.page.replaceAll('{{TOKEN}}', encodeURIComponent(requestToken));
      case 'script':
        return assets.script;
      case 'style':
        return assets.style;
      case 'icon':
        return assets.icon;
      case 'state':
        return current;
    }
  }

  function openStream(request: IncomingMessage, response: ServerResponse): void {
    if (streams.size >= MAX_CLIENTS) {
      response.writeHead(503, responseHeaders()).end('Too many viewers.\n');
      return;
    }
    // HEAD: the headers alone, and no stream held open (it would never be sent a byte).
    if (request.method === 'HEAD') {
      response.writeHead(200, responseHeaders('events')).end();
      return;
    }
    response.writeHead(200, responseHeaders('events'));
    response.write(`retry: 1000\n\n${eventOf(current)}`);
    streams.add(response);
    // Caught up with what it was sent: the state it missed meanwhile, the newest only.
    response.on('drain', () => {
      if (behind.delete(response)) response.write(eventOf(current));
    });
    request.on('close', () => {
      streams.delete(response);
      behind.delete(response);
    });
  }

  /**
   * `text` to every stream, but none to one that has not taken in what it was sent (a client that
   * stopped reading, a phone gone off the network): each event is the whole state, so such a
   * stream is marked and sent the newest state when it drains. What a stream holds stays one
   * event, however many changes it misses.
   */
  function sendAll(text: string, update: boolean): void {
    for (const stream of streams) {
      if (!stream.writableNeedDrain) stream.write(text);
      else if (update) behind.add(stream);
    }
  }

  let looking = false;
  const stopLooking = (options.schedule ?? everyPoll)(async () => {
    if (looking) return;
    looking = true;
    try {
      const { state, changed } = await source.load();
      if (!changed) return;
      const next = JSON.stringify(state);
      if (next === current) return;
      current = next;
      sendAll(eventOf(next), true);
    } catch {
      // A state file mid-replace or unreadable: the next look sees it.
    } finally {
      looking = false;
    }
  });
  const heartbeat = setInterval(() => {
    sendAll(': keep-alive\n\n', false);
  }, HEARTBEAT_MS);
  heartbeat.unref();

  try {
    await listen(server, served.host, options.port ?? 0);
  } catch (error) {
    stopLooking();
    clearInterval(heartbeat);
    throw listenError(error, served.host, options.port ?? 0);
  }
  served.port = (server.address() as AddressInfo).port;

  return {
    url: displayUrl(served, token),
    address: { ...served },
    clients: () => streams.size,
    close: () => {
      stopLooking();
      clearInterval(heartbeat);
      for (const stream of streams) stream.end();
      streams.clear();
      behind.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function eventOf(json: string): string {
  // JSON.stringify never emits a raw newline, so the document is one data line.
  return `event: state\ndata: ${json}\n\n`;
}

function readAssets(dir: string): Assets {
  try {
    return {
      page: readFileSync(join(dir, 'index.html'), 'utf8'),
      script: readFileSync(join(dir, 'app.js'), 'utf8'),
      style: readFileSync(join(dir, 'app.css'), 'utf8'),
      icon: readFileSync(join(dir, 'icon.svg'), 'utf8'),
    };
  } catch (error) {
    throw new RalphError('internal', `The web view's files are missing from ralph's package (${(error as NodeJS.ErrnoException).code ?? String(error)})`, {
      hint: 'reinstall ralph (npm install) so that its web/ folder is present',
    });
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function listenError(error: unknown, host: string, port: number): RalphError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new RalphError('bad_flag', `Port ${port} on ${host} is already in use`, { hint: 'leave out --port for a free one, or name another' });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new RalphError('bad_flag', `Cannot listen on ${host}: no such address on this machine`, { hint: 'leave out --host to serve on 127.0.0.1' });
  }
  if (code === 'EACCES') {
    return new RalphError('bad_flag', `Not allowed to listen on ${host}:${port}`, { hint: 'use a port above 1023, or leave out --port' });
  }
  return new RalphError('internal', `Cannot start the web view on ${host}:${port} (${code ?? String(error)})`);
}
