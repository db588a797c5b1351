// zod is configured in one module (lib/state/zod.ts: jitless, set before any schema is built),
// so every module that builds or runs a schema imports zod through it; a direct value import
// of 'zod' could build schemas before the configuration. Type-only imports are free.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const LIB = join(REPO_ROOT, 'lib');

describe('zod is imported through lib/state/zod.ts', () => {
  it('no other lib module imports a zod value directly', () => {
    const direct = readdirSync(LIB, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== join('state', 'zod.ts'))
      .filter((file) => /^(?:import|export)(?! type )[^'"]*from 'zod(?:\/[^']*)?'/m.test(readFileSync(join(LIB, file), 'utf8')));
    expect(direct).toEqual([]);
  });

  it('the configured module is jitless', async () => {
    const z = await import('../../../lib/state/zod.js');
    expect(z.config().jitless).toBe(true);
  });
});
