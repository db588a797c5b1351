// The web view's request rules, decided before anything is served: a read-only view (GET and
// HEAD only), a token on every request, and a `Host` that names the address served, so a page of
// another site that resolves its own name to 127.0.0.1 (DNS rebinding) is refused. The headers
// every answer carries forbid framing, sniffing, caching and referrers, and the content security
// policy allows the page's own script and style only: no inline script, no other origin. Pure.

export type WebRoute = 'page' | 'script' | 'style' | 'icon' | 'events' | 'state';

const ROUTES: Readonly<Record<string, WebRoute>> = {
  '/': 'page',
  '/index.html': 'page',
  '/app.js': 'script',
  '/app.css': 'style',
  '/icon.svg': 'icon',
  '/events': 'events',
  '/state.json': 'state',
};

export interface WebRequest {
  method: string;
  /** The request target as sent (`/events?token=…`). */
  url: string;
  /** The `Host` header, if any. */
  host: string | undefined;
}

export interface ServedAddress {
  /** The address the server was asked to listen on (`127.0.0.1`, `::1`, `0.0.0.0`, a name). */
  host: string;
  port: number;
}

export type RequestDecision = { ok: true; route: WebRoute; token: string } | { ok: false; status: number; message: string; allow?: string };

/**
 * What to do with one request. `tokenMatches` compares the request's token with the server's
 * (in constant time; the comparison is the caller's, which has the crypto).
 */
export function decideRequest(request: WebRequest, served: ServedAddress, tokenMatches: (token: string) => boolean): RequestDecision {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return { ok: false, status: 405, message: 'This view is read-only: only GET is answered.', allow: 'GET, HEAD' };
  }
  if (!hostIsServed(request.host, served)) {
    return { ok: false, status: 421, message: 'Unknown Host: open the address ralph printed.' };
  }
  const target = parseTarget(request.url);
  if (!target) return { ok: false, status: 400, message: 'Bad request target.' };
  const token = target.token ?? '';
  if (token === '' || !tokenMatches(token)) {
    return { ok: false, status: 403, message: 'Missing or wrong token: open the address ralph printed, with its ?token=.' };
  }
  const route = ROUTES[target.path];
  if (!route) return { ok: false, status: 404, message: 'Not found.' };
  return { ok: true, route, token };
}

function parseTarget(url: string): { path: string; token?: string } | undefined {
  if (!url.startsWith('/')) return undefined;
  const [path, query = ''] = splitOnce(url, '?');
  let token: string | undefined;
  for (const pair of query.split('&')) {
    const [name, value = ''] = splitOnce(pair, '=');
    if (name !== 'token') continue;
    try {
      token = decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return { path, token };
}

function splitOnce(text: string, separator: string): [string, string?] {
  const at = text.indexOf(separator);
  return at === -1 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
const ANY_ADDRESS = new Set(['0.0.0.0', '::', '[::]']);
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * The Host header must name what was served, with its port: the name or address given to
 * `--host`, or for a loopback or wildcard bind the machine's own literal addresses and
 * `localhost`. Any other name is a name someone else controls.
 */
export function hostIsServed(header: string | undefined, served: ServedAddress): boolean {
  if (header === undefined) return false;
  const parsed = splitHostHeader(header.trim().toLowerCase());
  if (!parsed || parsed.port !== served.port) return false;
  const { name } = parsed;
  const bound = served.host.toLowerCase();
  if (name === bound || `[${name}]` === bound || name === `[${bound}]`) return true;
  if (LOOPBACK_NAMES.has(bound)) return LOOPBACK_NAMES.has(name);
  if (ANY_ADDRESS.has(bound)) return name === 'localhost' || isAddressLiteral(name);
  return false;
}

function splitHostHeader(header: string): { name: string; port: number } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(header);
  if (!match) return undefined;
  return { name: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
}

function isAddressLiteral(name: string): boolean {
  return IPV4.test(name) || (name.includes(':') && /^[0-9a-f:.]+$/.test(name));
}

/** The content security policy: the page's own script and style, and its own `/events`. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Readonly<Record<WebRoute, string>> = {
  page: 'text/html; charset=utf-8',
  script: 'text/javascript; charset=utf-8',
  style: 'text/css; charset=utf-8',
  icon: 'image/svg+xml',
  events: 'text/event-stream; charset=utf-8',
  state: 'application/json; charset=utf-8',
};

/** Headers for every answer, refusals included; `route` adds its content type. */
export function responseHeaders(route?: WebRoute): Record<string, string> {
  return {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Content-Type': route ? CONTENT_TYPES[route] : 'text/plain; charset=utf-8',
  };
}

/** The address to print: a wildcard bind is opened through loopback on this machine. */
export function displayUrl(served: ServedAddress, token: string): string {
  const host = ANY_ADDRESS.has(served.host) ? '127.0.0.1' : served.host.includes(':') && !served.host.startsWith('[') ? `[${served.host}]` : served.host;
  return `http://${host}:${served.port}/?token=${encodeURIComponent(token)}`;
}
