// The web view's request rules: read-only, a token on every request, the Host it was served
// on, and the headers every answer carries.

import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, decideRequest, displayUrl, hostIsServed, responseHeaders } from '../../../lib/web/web-rules.js';

const SERVED = { host: '127.0.0.1', port: 8420 };
const TOKEN = 'secret-token';
const matches = (given: string) => given === TOKEN;

function decide(method: string, url: string, host: string | undefined = '127.0.0.1:8420') {
  return decideRequest({ method, url, host }, SERVED, matches);
}

describe('decideRequest', () => {
  it.each([
    ['/', 'page'],
    ['/index.html', 'page'],
    ['/app.js', 'script'],
    ['/app.css', 'style'],
    ['/icon.svg', 'icon'],
    ['/events', 'events'],
    ['/state.json', 'state'],
  ])('serves %s with the token', (path, route) => {
    expect(decide('GET', `${path}?token=${TOKEN}`)).toEqual({ ok: true, route, token: TOKEN });
    expect(decide('HEAD', `${path}?token=${TOKEN}`)).toMatchObject({ ok: true, route });
  });

  it.each(['/', '/app.js', '/app.css', '/events', '/state.json'])('refuses %s without the token, or with a wrong, empty or partial one', (path) => {
    for (const query of ['', '?token=', '?token=wrong', `?token=${TOKEN.slice(0, -1)}`, `?tokenx=${TOKEN}`, `?token=${TOKEN}x`]) {
      expect(decide('GET', `${path}${query}`)).toMatchObject({ ok: false, status: 403 });
    }
  });

  it('answers an unknown path with 404 only once the token matched (no map of the server without it)', () => {
    expect(decide('GET', `/admin?token=${TOKEN}`)).toMatchObject({ ok: false, status: 404 });
    expect(decide('GET', '/admin')).toMatchObject({ ok: false, status: 403 });
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE'])('refuses %s with 405 and Allow, even with the token', (method) => {
    expect(decide(method, `/?token=${TOKEN}`)).toEqual({ ok: false, status: 405, message: expect.any(String), allow: 'GET, HEAD' });
  });

  it('refuses a foreign or missing Host before looking at the token (DNS rebinding)', () => {
    expect(decide('GET', `/?token=${TOKEN}`, 'evil.example:8420')).toMatchObject({ ok: false, status: 421 });
    expect(decideRequest({ method: 'GET', url: `/?token=${TOKEN}`, host: undefined }, SERVED, matches)).toMatchObject({ ok: false, status: 421 });
    expect(decide('GET', `/?token=${TOKEN}`, '127.0.0.1:9999')).toMatchObject({ ok: false, status: 421 });
  });

  it('refuses a target that is not a path, or a token that does not decode', () => {
    expect(decide('GET', `http://127.0.0.1:8420/?token=${TOKEN}`)).toMatchObject({ ok: false, status: 400 });
    expect(decide('GET', '/?token=%E0%A4%A')).toMatchObject({ ok: false, status: 400 });
  });

  it('reads a percent-encoded token', () => {
    const special = 'a+b/c=';
    const result = decideRequest({ method: 'GET', url: `/?token=${encodeURIComponent(special)}`, host: '127.0.0.1:8420' }, SERVED, (t) => t === special);
    expect(result).toMatchObject({ ok: true });
  });
});

describe('hostIsServed', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1:8420', true],
    ['127.0.0.1', 'localhost:8420', true],
    ['127.0.0.1', 'LOCALHOST:8420', true],
    ['127.0.0.1', '[::1]:8420', true],
    ['127.0.0.1', '127.0.0.1', false],
    ['127.0.0.1', 'attacker.example:8420', false],
    ['127.0.0.1', 'localhost.attacker.example:8420', false],
    ['127.0.0.1', '10.0.0.5:8420', false],
    ['::1', '[::1]:8420', true],
    ['0.0.0.0', '192.168.1.20:8420', true],
    ['0.0.0.0', 'localhost:8420', true],
    ['0.0.0.0', 'rebind.attacker.example:8420', false],
    ['::', '[fe80::1]:8420', true],
    ['devbox.lan', 'devbox.lan:8420', true],
    ['devbox.lan', 'other.lan:8420', false],
    ['devbox.lan', '127.0.0.1:8420', false],
  ])('bound to %s, Host %s → %s', (host, header, expected) => {
    expect(hostIsServed(header, { host, port: 8420 })).toBe(expected);
  });
});

describe('responseHeaders', () => {
  it('forbid framing, sniffing, caching and referrers, with a policy that allows no inline script', () => {
    const headers = responseHeaders('page');
    expect(headers).toMatchObject({
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      'Content-Type': 'text/html; charset=utf-8',
    });
    expect(headers['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
    expect(responseHeaders('events')['Content-Type']).toBe('text/event-stream; charset=utf-8');
    expect(responseHeaders()['Content-Type']).toBe('text/plain; charset=utf-8');
  });
});

describe('displayUrl', () => {
  it('prints the loopback address for a wildcard bind, brackets an IPv6 one, and encodes the token', () => {
    expect(displayUrl({ host: '127.0.0.1', port: 1 }, 'abc')).toBe('http://127.0.0.1:1/?token=abc');
    expect(displayUrl({ host: '0.0.0.0', port: 2 }, 'a b')).toBe('http://127.0.0.1:2/?token=a%20b');
    expect(displayUrl({ host: '::1', port: 3 }, 't')).toBe('http://[::1]:3/?token=t');
  });
});
