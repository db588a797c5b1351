// The error funnel: a RalphError prints its message, details and hint with its exit code; an
// operating-system error a person can fix says what and where; anything else is an internal
// error with a hint, and a stack trace only with --debug.

import { describe, expect, it } from 'vitest';
import { reportError } from '../../../lib/cli/error-funnel.js';
import { RalphError } from '../../../lib/errors.js';

function report(error: unknown, debug = false): { code: number; text: string } {
  let text = '';
  const code = reportError(error, { debug, write: (t) => (text += t) });
  return { code, text };
}

describe('reportError', () => {
  it('prints a RalphError with its details and hint, and uses its exit code', () => {
    const r = report(new RalphError('x', 'Something is off', { exitCode: 2, details: ['- line 1'], hint: 'do this' }));
    expect(r).toEqual({ code: 2, text: 'Error: Something is off\n- line 1\nhint: do this\n' });
  });

  it('names a full disk and the path, with what to do, and no stack', () => {
    const error = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', path: '/p/.ralph/status.json' });
    const r = report(error);
    expect(r.code).toBe(1);
    expect(r.text).toBe(
      'Error: No space left on device: /p/.ralph/status.json\nhint: free some disk space (old .ralph/logs/claude_output_*.log files can go), then run again\n',
    );
  });

  it('reports anything else as an internal error; the stack only with --debug', () => {
    expect(report(new Error('boom')).text).toBe('Error: internal error: boom\nhint: run again with --debug for details\n');
    expect(report(new Error('boom'), true).text).toMatch(/Error: internal error: boom\nError: boom\n\s+at /);
  });
});
