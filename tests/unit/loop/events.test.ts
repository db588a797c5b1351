// Every loop event type is emitted by the loop or its steps and heard by a subscriber: one of
// ralph's own (lib/) or an embedder that runs a real loop (an integration or system test). A
// type that lost either side is dead and goes. Also: the run's outputs hear an event before the
// emitter it is forwarded to (an embedder's listeners).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LoopEvents } from '../../../lib/loop/events.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';

function sources(dir: string): string[] {
  const root = join(REPO_ROOT, dir);
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(root, f), 'utf8'));
}

function namesIn(texts: string[], call: RegExp): Set<string> {
  return new Set(texts.flatMap((text) => [...text.matchAll(call)].map((m) => m[1]!)));
}

const EVENT_TYPES = [...readFileSync(join(REPO_ROOT, 'lib/loop/events.ts'), 'utf8').matchAll(/^ {2}'([a-z-]+:[a-z-]+)':/gm)].map((m) => m[1]!);
const EMIT = /\.emit\(\s*'([a-z-]+:[a-z-]+)'/g;
const ON = /\.on\(\s*'([a-z-]+:[a-z-]+)'/g;

describe('loop event types', () => {
  it('are read from events.ts', () => {
    expect(EVENT_TYPES).toContain('run:finished');
    expect(EVENT_TYPES.length).toBeGreaterThan(10);
  });

  it('each have an emitter in lib/', () => {
    const emitted = namesIn(sources('lib'), EMIT);
    expect(EVENT_TYPES.filter((name) => !emitted.has(name))).toEqual([]);
  });

  it('each have a subscriber: in lib/, or an embedder running a real loop', () => {
    const heard = namesIn([...sources('lib'), ...sources('tests/integration'), ...sources('tests/system')], ON);
    expect(EVENT_TYPES.filter((name) => !heard.has(name))).toEqual([]);
  });
});

describe('LoopEvents', () => {
  it('delivers to its own listeners, in order, then to the emitter it forwards to', () => {
    const heard: string[] = [];
    const embedder = new LoopEvents().on('run:opened', () => heard.push('embedder'));
    const run = new LoopEvents().forwardTo(embedder);
    run.on('run:opened', () => heard.push('status'));
    run.on('run:opened', () => heard.push('notifications'));
    run.emit('run:opened', { runId: 'r', resumed: false, nextLoop: 1, cutOff: [] });
    expect(heard).toEqual(['status', 'notifications', 'embedder']);
  });
});
