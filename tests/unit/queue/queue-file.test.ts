import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { emptyQueueFile, loadQueueFile, saveQueueFile } from '../../../lib/queue/queue-file.js';
import { fixedClock, useTempDir } from '../state/test-context.js';

const tempDir = useTempDir();
const NOW = '2026-11-30T04:48:19+00:00';

function setup() {
  const paths = ralphPaths(tempDir());
  mkdirSync(paths.ralphDir);
  const logger = createMemoryLogger();
  return { paths, logger, options: { logger, clock: fixedClock() } };
}

// As the Bash tool's queue_manager.sh writes it: gh's label objects, no `path` on an issue.
const BASH_QUEUE = {
  version: '1.0',
  created_at: '2026-11-29T10:00:00+00:00',
  updated_at: '2026-11-29T10:05:00+00:00',
  repository: 'owner/repo',
  queue: [
    {
      source: 'github',
      id: 'github-69',
      issue_number: 69,
      title: 'Fix login',
      priority: 'P0',
      labels: [{ id: 'LA_1', name: 'P0', description: '', color: 'ff0000' }],
      milestone: null,
      dependencies: [70],
      status: 'completed',
      added_at: '2026-11-29T10:00:00+00:00',
      started_at: '2026-11-29T10:01:00+00:00',
      completed_at: '2026-11-29T10:04:00+00:00',
      error_message: '',
    },
    {
      source: 'prd',
      id: 'prd-specs-a-md',
      title: 'a.md',
      priority: '',
      labels: [],
      dependencies: [],
      milestone: null,
      status: 'failed',
      added_at: '2026-11-29T10:00:00+00:00',
      started_at: null,
      completed_at: null,
      error_message: 'loop exited non-zero',
      path: '/p/specs/a.md',
    },
  ],
};

describe('queue.json', () => {
  it("reads the Bash tool's file, keeping fields it does not know", () => {
    const { paths, options } = setup();
    writeFileSync(paths.queue, JSON.stringify(BASH_QUEUE));
    const result = loadQueueFile(paths.queue, NOW, options);
    expect(result.status).toBe('ok');
    expect(result.value.repository).toBe('owner/repo');
    expect(result.value.queue[0]).toMatchObject({ issue_number: 69, path: null, labels: [{ name: 'P0', color: 'ff0000' }] });
    expect(result.value.queue[1]).toMatchObject({ issue_number: null, path: '/p/specs/a.md', status: 'failed' });
  });

  it('round-trips through an atomic save that stamps updated_at', () => {
    const { paths, options } = setup();
    writeFileSync(paths.queue, JSON.stringify(BASH_QUEUE));
    const loaded = loadQueueFile(paths.queue, NOW, options).value;
    saveQueueFile(paths.queue, loaded, NOW);
    const saved = JSON.parse(readFileSync(paths.queue, 'utf8'));
    expect(saved).toEqual({
      ...BASH_QUEUE,
      updated_at: NOW,
      queue: [
        { ...BASH_QUEUE.queue[0], path: null },
        { ...BASH_QUEUE.queue[1], issue_number: null },
      ],
    });
    expect(readdirSync(paths.ralphDir)).toEqual(['queue.json']);
  });

  it('gives an empty queue for a missing file', () => {
    const { paths, logger, options } = setup();
    expect(loadQueueFile(paths.queue, NOW, options)).toEqual({ value: emptyQueueFile(NOW), status: 'missing' });
    expect(logger.entries).toEqual([]);
  });

  it.each([
    ['not JSON', '{"version": "1.0", "queue": [{"id": "github-1"'],
    ['an unknown status', JSON.stringify({ ...BASH_QUEUE, queue: [{ ...BASH_QUEUE.queue[0], status: 'done' }] })],
    ['a bad priority', JSON.stringify({ ...BASH_QUEUE, queue: [{ ...BASH_QUEUE.queue[0], priority: 'urgent' }] })],
  ])('sets a corrupt file (%s) aside with a warning instead of losing it', (_what, text) => {
    const { paths, logger, options } = setup();
    writeFileSync(paths.queue, text);
    const result = loadQueueFile(paths.queue, NOW, options);
    expect(result.status).toBe('corrupt');
    expect(result.value.queue).toEqual([]);
    const aside = readdirSync(paths.ralphDir).filter((name) => name.startsWith('queue.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(`${paths.ralphDir}/${aside[0]}`, 'utf8')).toBe(text);
    expect(logger.messages('WARN')).toEqual([expect.stringContaining(`State file queue.json is unreadable`)]);
  });
});
