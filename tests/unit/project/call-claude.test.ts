import { describe, expect, it } from 'vitest';
import { findResultObject } from '../../../lib/project/call-claude.js';

describe('findResultObject', () => {
  it('reads a single json result object', () => {
    expect(findResultObject('{"type":"result","is_error":false,"result":"ok"}\n')).toMatchObject({ result: 'ok' });
  });

  it('takes the last result of a --verbose json array (claude-cli-contract rule 3)', () => {
    const out = JSON.stringify([{ type: 'system' }, { type: 'assistant' }, { type: 'result', result: 'final' }]);
    expect(findResultObject(out)).toMatchObject({ result: 'final' });
  });

  it('takes the result line of stream-json output', () => {
    expect(findResultObject('{"type":"system","subtype":"init"}\n{"type":"result","result":"done"}\n')).toMatchObject({ result: 'done' });
  });

  it('returns undefined for plain text', () => {
    expect(findResultObject('Just some text\n')).toBeUndefined();
  });
});
