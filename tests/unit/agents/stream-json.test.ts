import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createStreamAccumulator, renderLiveLine, summarizeToolInput, type StreamMessage } from '../../../lib/agents/stream-json.js';

const recording = (label: string): string => readFileSync(new URL(`../../fixtures/recordings/${label}.stdout`, import.meta.url), 'utf8');

function wholeLines(text: string): string[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function accumulate(label: string) {
  const acc = createStreamAccumulator();
  for (const line of wholeLines(recording(label))) acc.push(line);
  return acc.snapshot();
}

describe('createStreamAccumulator on real recordings', () => {
  it('happy_sj: session, model, final result, tool count and last tool', () => {
    const s = accumulate('happy_sj');
    expect(s.sawInit).toBe(true);
    expect(s.sessionId).toBe('0be36961-1027-4798-ad92-cea55f3781b6');
    expect(s.model).toBe('claude-opus-5-5');
    expect(s.result?.result).toBe('Updated notes.txt and listed the directory. All tasks complete.');
    expect(s.toolUseCount).toBe(3);
    expect(s.lastTool).toEqual({ name: 'Bash', summary: 'ls -1' });
    expect(s.assistantTextTail).toBe("I'll read the notes file first.\nUpdated notes.txt and listed the directory. All tasks complete.");
    expect(s.garbageLines).toBe(0);
    expect(s.lineCount).toBe(10);
    expect(s.rateLimit).toBeNull();
  });

  it('denybash_sj: counts the permission_denied event', () => {
    const s = accumulate('denybash_sj');
    expect(s.permissionDeniedEvents).toBe(1);
    expect(s.lastTool).toEqual({ name: 'Bash', summary: 'npm test' });
  });

  it('e429oauth_sj: keeps the rejected rate-limit event and the synthetic error', () => {
    const s = accumulate('e429oauth_sj');
    expect(s.rateLimit).toEqual({ status: 'rejected', resetsAt: 1796017539, rateLimitType: 'five_hour' });
    expect(s.anyRateLimitRejected).toBe(true);
    expect(s.assistantError).toBe('rate_limit');
    expect(s.model).toBe('claude-sonnet-5-5');
    expect(s.result?.is_error).toBe(true);
  });

  it('e529_sj: counts api_retry events', () => {
    expect(accumulate('e529_sj').apiRetryCount).toBe(2);
  });

  it('sigterm_sj: no result, session id recovered from init', () => {
    const s = accumulate('sigterm_sj');
    expect(s.result).toBeNull();
    expect(s.sessionId).toBe('0890414d-2910-4b36-a30a-795af59ea559');
  });

  it('partial_sj: stream_event lines are skipped unless asked for, and the result is the same', () => {
    const plain = createStreamAccumulator();
    const withEvents = createStreamAccumulator({ parseStreamEvents: true });
    let parsedPlain = 0;
    let parsedEvents = 0;
    for (const line of wholeLines(recording('partial_sj'))) {
      if (plain.push(line)) parsedPlain++;
      if (withEvents.push(line)?.type === 'stream_event') parsedEvents++;
    }
    expect(parsedEvents).toBeGreaterThan(20);
    expect(parsedPlain).toBeLessThan(15);
    expect(plain.snapshot().result).toEqual(withEvents.snapshot().result);
    expect(plain.snapshot().toolUseCount).toBe(3);
  });
});

describe('createStreamAccumulator edge cases', () => {
  it('counts non-JSON lines as garbage instead of throwing, and ignores blank lines', () => {
    const acc = createStreamAccumulator();
    acc.push('(node:123) Warning: something on stderr');
    acc.push('{"type":"result","result":"ok","session_id":"s1"');
    acc.push('   ');
    acc.push('[1,2]');
    acc.push('{"type":"result","result":"ok","session_id":"s1"}');
    const s = acc.snapshot();
    expect(s.garbageLines).toBe(3);
    expect(s.result?.result).toBe('ok');
  });

  it('lets the first result win, the result session id beat init, and counts what follows it', () => {
    const acc = createStreamAccumulator();
    acc.push('{"type":"system","subtype":"init","session_id":"init-id","model":"m1"}');
    acc.push('{"type":"result","result":"first","session_id":"r1"}');
    acc.push('{"type":"system","subtype":"init","session_id":"init-2"}');
    acc.push('{"session_id":"r2","result":"second","type":"result"}');
    acc.push('not json');
    const s = acc.snapshot();
    expect(s.result?.result).toBe('first');
    expect(s.sessionId).toBe('r1');
    expect(s.afterResultLines).toBe(3);
    expect(s.garbageLines).toBe(0);
  });

  it('keeps only the last rate-limit event but remembers any rejection', () => {
    const acc = createStreamAccumulator();
    acc.push('{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":5,"rateLimitType":"five_hour"}}');
    acc.push('{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}');
    const s = acc.snapshot();
    expect(s.rateLimit).toEqual({ status: 'allowed', resetsAt: null, rateLimitType: null });
    expect(s.anyRateLimitRejected).toBe(true);
  });

  it('bounds the assistant text tail and excludes subagent text', () => {
    const acc = createStreamAccumulator();
    const block = (text: string, parent: string | null) =>
      JSON.stringify({ type: 'assistant', parent_tool_use_id: parent, message: { content: [{ type: 'text', text }] } });
    acc.push(block('a'.repeat(5000), null));
    acc.push(block('from a subagent', 'toolu_1'));
    acc.push(block('END', null));
    const tail = acc.snapshot().assistantTextTail;
    expect(tail).toHaveLength(4096);
    expect(tail.endsWith('a\nEND')).toBe(true);
    expect(tail).not.toContain('subagent');
  });

  it('does not parse user lines (tool results) at all', () => {
    const acc = createStreamAccumulator();
    expect(acc.push('{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}')).toBeUndefined();
    expect(acc.snapshot().garbageLines).toBe(0);
  });

  it('processes a large stream fast and in flat state', () => {
    const bigResult = JSON.stringify({
      type: 'user',
      message: { content: [{ type: 'tool_result', content: 'y'.repeat(200_000) }] },
    });
    const assistant = recording('happy_sj').split('\n')[2] ?? '';
    const acc = createStreamAccumulator();
    for (let i = 0; i < 300; i++) {
      acc.push(bigResult);
      acc.push(assistant);
    }
    const s = acc.snapshot();
    expect(s.toolUseCount).toBe(300);
    expect(s.assistantTextTail).toBe('');
  });
});

describe('summarizeToolInput', () => {
  it.each([
    ['Bash', { command: 'npm test\n--more' }, 'npm test'],
    ['Read', { file_path: '/a/b.ts' }, '/a/b.ts'],
    ['Write', { file_path: 'w.ts', content: 'x' }, 'w.ts'],
    ['Edit', { file_path: 'e.ts' }, 'e.ts'],
    ['Glob', { pattern: '**/*.ts' }, '**/*.ts'],
    ['Grep', { pattern: 'TODO' }, 'TODO'],
    ['Task', { description: 'Explore code' }, 'Explore code'],
    ['Agent', { description: 'Sub agent' }, 'Sub agent'],
    ['Unknown', { command: 'x' }, ''],
    ['Bash', null, ''],
  ])('%s → %j', (name, input, expected) => {
    expect(summarizeToolInput(name, input)).toBe(expected);
  });

  it('cuts the argument to 120 characters', () => {
    expect(summarizeToolInput('Bash', { command: 'c'.repeat(300) })).toHaveLength(120);
  });
});

describe('renderLiveLine', () => {
  const lines = wholeLines(recording('happy_sj')).map((l) => JSON.parse(l) as StreamMessage);

  it('renders text blocks and tool calls, with arguments only when asked', () => {
    const withArgs = lines.map((m) => renderLiveLine(m, { showToolArgs: true })).join('');
    expect(withArgs).toBe(
      "I'll read the notes file first.\n" +
        '\n⚡ [Read] /home/user/project/notes.txt\n' +
        '\n⚡ [Edit] /home/user/project/notes.txt\n' +
        '\n⚡ [Bash] ls -1\n' +
        'Updated notes.txt and listed the directory. All tasks complete.\n',
    );
    const withoutArgs = lines.map((m) => renderLiveLine(m, { showToolArgs: false })).join('');
    expect(withoutArgs).toContain('\n⚡ [Bash]\n');
    expect(withoutArgs).not.toContain('ls -1');
  });

  it('renders partial-message deltas once, without repeating the complete text block', () => {
    const partial = wholeLines(recording('partial_sj')).map((l) => JSON.parse(l) as StreamMessage);
    const out = partial.map((m) => renderLiveLine(m, { showToolArgs: true, partialMessages: true })).join('');
    expect(out.split("I'll read the notes file first.")).toHaveLength(2);
    expect(out).toContain('\n⚙ Read...');
    expect(out).toContain('\n⚡ [Read] /home/user/project/notes.txt\n');
  });

  it('renders subagent start and progress', () => {
    expect(renderLiveLine({ type: 'system', subtype: 'task_started', description: 'Explore' }, { showToolArgs: false })).toBe('\n🚀 Agent: Explore\n');
    expect(renderLiveLine({ type: 'system', subtype: 'task_started' }, { showToolArgs: false })).toBe('\n🚀 Agent: started\n');
    expect(renderLiveLine({ type: 'system', subtype: 'task_progress', description: 'Reading' }, { showToolArgs: false })).toBe('📌 Reading\n');
    expect(renderLiveLine({ type: 'system', subtype: 'task_progress' }, { showToolArgs: false })).toBe('📌 working...\n');
    expect(renderLiveLine({ type: 'system', subtype: 'init' }, { showToolArgs: false })).toBe('');
    expect(renderLiveLine({ type: 'result' }, { showToolArgs: false })).toBe('');
  });
});
