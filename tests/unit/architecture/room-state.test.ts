// Each room owns its state: what the run holds of a room (the plan, the breaker, the agents,
// the spend, the guards' record, the completion conflicts) is a readonly field of RunState whose
// object changes only through its own operations. The loose fields left are the loop's own
// counters, and only loop/ assigns them. A step in another room that sets one fails here: give
// the room an operation instead (or return the value to the loop).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const LIB = join(REPO_ROOT, 'lib');

/** Files outside loop/ that set a loose field, each with the fields it may set. */
const KNOWN_WRITERS: Record<string, string[]> = {
  // The content snapshotter is set up by the first loop that measures (lazily, where it is made).
  'analysis/loop-progress.ts': ['content'],
};

/** The fields of RunState that are not readonly, read from its declaration. */
function looseFields(): string[] {
  const text = readFileSync(join(LIB, 'loop/run.ts'), 'utf8');
  const body = /^export interface RunState \{\n([\s\S]*?)^\}/m.exec(text)![1]!;
  return [...body.matchAll(/^ {2}(readonly )?(\w+)\??:/gm)].filter((m) => !m[1]).map((m) => m[2]!);
}

function writers(fields: string[]): string[] {
  const field = fields.join('|');
  const write = new RegExp(`\\bstate\\.(${field})\\s*(?:[-+*/?|&]?=(?!=)|\\+\\+|--)|(?:\\+\\+|--)\\s*\\w*\\.?state\\.(${field})\\b`, 'g');
  return readdirSync(LIB, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.startsWith('loop/'))
    .flatMap((file) => {
      const text = readFileSync(join(LIB, file), 'utf8');
      const set = [...new Set([...text.matchAll(write)].map((m) => m[1] ?? m[2]!))];
      const allowed = KNOWN_WRITERS[file] ?? [];
      return set.filter((f) => !allowed.includes(f)).map((f) => `${file} sets run.state.${f}`);
    });
}

describe('each room owns its state', () => {
  it('no file outside loop/ sets a loose field of the run', () => {
    expect(writers(looseFields())).toEqual([]);
  });

  it("sees RunState's loose fields and a write of one (the check itself)", () => {
    const fields = looseFields();
    expect(fields).toContain('loopCount');
    expect(fields).not.toContain('plan');
    expect(new RegExp(`\\bstate\\.(${fields.join('|')})\\s*(?:[-+*/?|&]?=(?!=)|\\+\\+|--)`).test('run.state.loopCount = 3')).toBe(true);
    expect(new RegExp(`\\bstate\\.(${fields.join('|')})\\s*(?:[-+*/?|&]?=(?!=)|\\+\\+|--)`).test('run.state.loopCount === 3')).toBe(false);
  });
});
