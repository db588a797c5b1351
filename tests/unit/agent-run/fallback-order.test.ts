// Which agent runs the next loop, and a call's tokens from a running total: the pure rules.
import { describe, expect, it } from 'vitest';
import { activeLimits, pickAgent, type AgentLimit } from '../../../lib/agent-run/fallback-order.js';
import { usageSinceLastCall } from '../../../lib/limits/cumulative-usage.js';

const NOW = Date.parse('2026-11-30T03:10:00Z');
const limit = (resumeAt: number, reason = 'limit'): AgentLimit => ({
  resume_at_ms: resumeAt,
  resume_at: new Date(resumeAt).toISOString(),
  reason,
  detected_at: '',
});
const ORDER = ['claude', 'codex', 'gemini'];

describe('pickAgent', () => {
  it('is the primary when it is not limited, whatever the others', () => {
    expect(pickAgent(ORDER, { codex: limit(NOW + 1000) }, new Set(), NOW)).toEqual({ kind: 'agent', name: 'claude' });
  });

  it('is the next agent in order while the ones before it are limited', () => {
    expect(pickAgent(ORDER, { claude: limit(NOW + 1000) }, new Set(), NOW)).toEqual({ kind: 'agent', name: 'codex' });
    expect(pickAgent(ORDER, { claude: limit(NOW + 1000), codex: limit(NOW + 5) }, new Set(), NOW)).toEqual({ kind: 'agent', name: 'gemini' });
  });

  it('goes back to the primary once its limit has reset', () => {
    expect(pickAgent(ORDER, { claude: limit(NOW) }, new Set(), NOW)).toEqual({ kind: 'agent', name: 'claude' });
  });

  it('skips agents left out of the run', () => {
    expect(pickAgent(ORDER, { claude: limit(NOW + 1000) }, new Set(['codex']), NOW)).toEqual({ kind: 'agent', name: 'gemini' });
  });

  it('waits for the earliest reset when every agent left is limited', () => {
    const limits = { claude: limit(NOW + 9000, 'five hour'), codex: limit(NOW + 3000, 'quota'), gemini: limit(NOW + 1000) };
    expect(pickAgent(ORDER, limits, new Set(['gemini']), NOW)).toEqual({ kind: 'wait', until: NOW + 3000, reason: 'codex: quota' });
  });

  it('activeLimits forgets the limits that have reset', () => {
    expect(activeLimits({ claude: limit(NOW), codex: limit(NOW + 1) }, NOW)).toEqual({ codex: limit(NOW + 1) });
  });
});

describe('usageSinceLastCall', () => {
  const total = (input: number, output: number, cacheRead = 0) => ({ input, output, cacheRead, cacheCreation: 0 });

  it('is the growth of the running total since the previous call of the session', () => {
    expect(usageSinceLastCall(total(400, 120, 2000), total(200, 60, 1000))).toEqual(total(200, 60, 1000));
  });

  it('is the whole total for a first call, and for a total that went down (a session that started over)', () => {
    expect(usageSinceLastCall(total(200, 60), undefined)).toEqual(total(200, 60));
    expect(usageSinceLastCall(total(200, 60), total(400, 10))).toEqual(total(200, 60));
  });
});
