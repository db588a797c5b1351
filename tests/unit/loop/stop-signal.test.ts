// The stop signal: the first signal aborts the run; a second one to the process itself runs the
// caller's clean-up and exits at once (128 + the signal number), the one process exit below the
// command line; on a stand-in for the process (a parallel unit, a fleet job), a second signal ends
// nothing.

import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { installStopSignal } from '../../../lib/loop/stop-signal.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';

describe('installStopSignal', () => {
  it('on a stand-in: the first signal aborts, a second runs no clean-up and exits nothing', () => {
    const source = new EventEmitter();
    const seen: string[] = [];
    const stop = installStopSignal({ process: source, onFirst: (s) => seen.push(`first ${s}`), onSecond: (s) => seen.push(`second ${s}`) });
    source.emit('SIGINT', 'SIGINT');
    source.emit('SIGTERM', 'SIGTERM');
    expect(stop.signal.aborted).toBe(true);
    expect(stop.received).toBe('SIGINT');
    expect(seen).toEqual(['first SIGINT']);
    stop.dispose();
    expect(source.listenerCount('SIGINT')).toBe(0);
  });

  it('on the process: a second Ctrl-C runs the clean-up, then exits 130 at once', () => {
    const module = pathToFileURL(join(REPO_ROOT, 'dist', 'loop', 'stop-signal.js')).href;
    const script = `
      import { installStopSignal } from ${JSON.stringify(module)};
      const stop = installStopSignal({ onFirst: () => console.log('first'), onSecond: () => console.log('cleaned up') });
      stop.signal.addEventListener('abort', () => process.kill(process.pid, 'SIGINT'));
      // Kept alive by a timer that never fires before the exit this test waits for.
      setTimeout(() => { console.log('still running'); process.exit(99); }, 20_000);
      process.kill(process.pid, 'SIGINT');
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
    expect(run.stdout).toBe('first\ncleaned up\n');
    expect(run.status).toBe(130);
  });
});
