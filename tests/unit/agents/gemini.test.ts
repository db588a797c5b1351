// The Gemini CLI adapter against every recorded run of the real CLI 0.61.0: what it reads from
// stream-json (session id, the assistant's text with RALPH_STATUS, tools, tokens) and how it
// classifies each ending (exit code = HTTP status mod 256; 42 on a bad resume id). Plus the argv.

import { describe, expect, it } from 'vitest';
import { analyzeResponse } from '../../../lib/analysis/response-analysis.js';
import { approvalModeFor, buildGeminiInvocation, GEMINI_PROMPT_FLAG, geminiAdapter, geminiStartupWarnings } from '../../../lib/agents/gemini.js';
import { DEFAULT_ALLOWED_TOOLS, splitAllowedTools } from '../../../lib/config/schema.js';
import { agentRecordingLabels, readAgentRecording, replayThroughAdapter } from '../../helpers/agent-recordings.js';

const CLI = 'gemini-cli-0.61.0';
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const replay = (label: string, options: { timedOut?: boolean } = {}) =>
  replayThroughAdapter(geminiAdapter, readAgentRecording(CLI, label), { now: NOW, ...options });
const HAPPY_USAGE = { input: 200, output: 60, cacheRead: 1000, cacheCreation: 0 };

describe('Gemini CLI recordings', () => {
  it('covers every recorded label', () => {
    expect(agentRecordingLabels(CLI)).toEqual([
      '401',
      '429',
      '500',
      'gdaily',
      'gminute',
      'happy',
      'preassign',
      'quota',
      'r1',
      'r2',
      'r3',
      'rbad',
      'tool',
      'tool_default',
    ]);
  });

  it.each(['happy', 'preassign', 'r1', 'r2'])('%s: ok, with the session id, the RALPH_STATUS text and per-run tokens', (label) => {
    const { summary, failure } = replay(label);
    expect(failure).toEqual({ kind: 'ok' });
    expect(summary.hasResult).toBe(true);
    expect(summary.isError).toBe(false);
    expect(summary.sessionId).toBe(JSON.parse(readAgentRecording(CLI, label).stdout.split('\n')[0]!).session_id);
    expect(summary.resultText).toMatch(/^Did the work\.\n---RALPH_STATUS---\nSTATUS: COMPLETE\n[\s\S]*EXIT_SIGNAL: true\n[\s\S]*---END_RALPH_STATUS---$/);
    expect(summary.usage).toEqual(HAPPY_USAGE);
    expect(summary.totalCostUsd).toBeNull();
  });

  it('r1 and r2 are one session (r2 resumed r1 with -r)', () => {
    expect(replay('r2').summary.sessionId).toBe(replay('r1').summary.sessionId);
    expect(replay('r1').summary.sessionId).toBe('21111111-2222-4333-8444-555555555555');
  });

  it('the status block read from the text says EXIT_SIGNAL true', () => {
    const { summary } = replay('happy');
    const analysis = analyzeResponse({
      agent: summary,
      loopNumber: 1,
      filesChanged: 0,
      newContent: false,
      allowedTools: [],
      outputFile: 'x.log',
      now: new Date(NOW),
    });
    expect(analysis.analysis.exit_signal).toBe(true);
  });

  it('tool: the shell call is shown as the tool in use, and both turns count in the tokens', () => {
    const { summary, failure, activity } = replay('tool');
    expect(failure.kind).toBe('ok');
    expect(activity.map((a) => a.tool).filter(Boolean)).toEqual(['run_shell_command: ls -1']);
    expect(activity.some((a) => a.text?.includes('⚡ [run_shell_command] ls -1'))).toBe(true);
    expect(summary.usage).toEqual({ input: 400, output: 120, cacheRead: 2000, cacheCreation: 0 });
    expect(summary.resultText).toContain('EXIT_SIGNAL: true');
  });

  it('tool_default: a failed tool call does not fail the run', () => {
    const { summary, failure } = replay('tool_default');
    expect(failure.kind).toBe('ok');
    expect(summary.sessionId).toBe('f9101da8-8da2-43f2-ae81-d5f0fab41239');
    expect(summary.resultText).toContain('STATUS: COMPLETE');
  });

  it('401 (exit 145): auth, with the API message and the fix', () => {
    const { summary, failure } = replay('401');
    expect(summary.isError).toBe(true);
    expect(summary.sessionId).toBe('3283ebce-7a8c-4cc2-84d4-c9d798612271');
    expect(failure).toMatchObject({ kind: 'auth', message: 'Incorrect API key provided.' });
    expect(failure.kind === 'auth' && failure.fix).toMatch(/GEMINI_API_KEY/);
  });

  it('gdaily (exit 173): a usage limit with the CLI message; no retry delay was given, so no reset', () => {
    const { failure } = replay('gdaily');
    expect(failure).toMatchObject({ kind: 'usage_limit', message: 'You have exhausted your daily quota on this model.' });
    expect(failure.kind === 'usage_limit' && failure.usageLimit.resetAt).toBeUndefined();
  });

  it.each(['429', '500', 'quota', 'gminute'])("%s: the CLI retries silently until ralph's timeout, which is a timeout, never a limit", (label) => {
    const { summary, failure } = replay(label, { timedOut: true });
    expect(failure).toEqual({ kind: 'timeout' });
    expect(summary.hasResult).toBe(false);
    expect(summary.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rbad (exit 42, "Invalid session identifier"): session_not_found, so a fresh session follows', () => {
    const { summary, failure } = replay('rbad');
    expect(summary.sessionId).toBeNull();
    expect(failure.kind).toBe('session_not_found');
  });

  it('r3 (exit 42, a preassigned id that exists): a plain failure, not an unknown session', () => {
    expect(replay('r3').failure).toMatchObject({ kind: 'failed', message: expect.stringContaining('already exists') });
  });
});

describe('Gemini assistant text', () => {
  it('concatenates the deltas of a reply, and starts a reply after a tool call on a new line', () => {
    const lines = [
      { type: 'init', session_id: 'fd3c5715-8386-4cb6-9969-748ccf424146', model: 'm' },
      { type: 'message', role: 'assistant', content: 'Looking', delta: true },
      { type: 'message', role: 'assistant', content: ' first.', delta: true },
      { type: 'tool_use', tool_name: 'read_file', tool_id: 't1', parameters: { absolute_path: '/p/notes.txt' } },
      { type: 'tool_result', tool_id: 't1', status: 'success', output: 'x' },
      { type: 'message', role: 'assistant', content: '---RALPH_STATUS---\nSTATUS: COMP', delta: true },
      { type: 'message', role: 'assistant', content: 'LETE\n---END_RALPH_STATUS---', delta: true },
      { type: 'result', status: 'success', stats: { input_tokens: 10, output_tokens: 2, cached: 0, input: 10 } },
    ];
    const { summary, activity } = replayThroughAdapter(geminiAdapter, { stdout: lines.map((l) => JSON.stringify(l)).join('\n'), stderr: '', rc: 0 });
    expect(summary.resultText).toBe('Looking first.\n---RALPH_STATUS---\nSTATUS: COMPLETE\n---END_RALPH_STATUS---');
    expect(activity.map((a) => a.tool).filter(Boolean)).toEqual(['read_file: /p/notes.txt']);
  });
});

describe('Gemini failures the recordings do not show', () => {
  const facts = (exitCode: number, stderr: string, stdout = '') => {
    const reader = geminiAdapter.createOutputReader({ outputFormat: 'json', showToolArgs: false });
    reader.push(Buffer.from(stdout));
    return { exitCode, timedOut: false, summary: reader.finish().summary, stderrTail: stderr, outputFormat: 'json' as const };
  };

  it('exit 41 (no auth method configured) is auth with the setup fix', () => {
    const failure = geminiAdapter.classifyFailure(facts(41, 'Please set an Auth method in your settings.json or specify GEMINI_API_KEY\n'), NOW);
    expect(failure).toMatchObject({ kind: 'auth', message: expect.stringContaining('Auth method') });
    expect(failure.kind === 'auth' && failure.fix).toMatch(/settings\.json/);
  });

  it('exit 173 with a stated retry delay resets after it', () => {
    const failure = geminiAdapter.classifyFailure(facts(173, 'TerminalQuotaError: quota\n  retryDelayMs: 90000,\n  status: 429\n'), NOW);
    expect(failure.kind === 'usage_limit' && failure.usageLimit.resetAt).toBe(NOW + 90_000);
  });

  it('exit 0 without a result event is a failed run', () => {
    expect(geminiAdapter.classifyFailure(facts(0, ''), NOW).kind).toBe('failed');
  });

  it('exit 244 (500 mod 256) is a transient server error', () => {
    expect(geminiAdapter.classifyFailure(facts(244, 'status: 500\n'), NOW)).toMatchObject({ kind: 'transient', reason: 'server_error' });
  });
});

describe('the Gemini argv', () => {
  const base = {
    command: 'gemini',
    prompt: '# Task\nSECRET_PROJECT_TEXT\n',
    outputFormat: 'json' as const,
    allowedTools: splitAllowedTools(DEFAULT_ALLOWED_TOOLS),
    loopContext: 'Loop 2 context',
  };

  it('is a fixed -p instruction and stream-json; the prompt and the loop context go on stdin', () => {
    const inv = buildGeminiInvocation(base);
    expect([inv.cmd, ...inv.args]).toEqual(['gemini', '-p', GEMINI_PROMPT_FLAG, '-o', 'stream-json', '--approval-mode', 'yolo']);
    expect(inv.stdin).toContain('SECRET_PROJECT_TEXT');
    expect(inv.stdin).toContain('Loop 2 context');
    expect(inv.args.join(' ')).not.toContain('SECRET_PROJECT_TEXT');
  });

  it('passes the model with -m and resumes with -r <uuid>', () => {
    const inv = buildGeminiInvocation({
      ...base,
      command: 'npx @google/gemini-cli',
      model: 'gemini-2.5-pro',
      resumeSessionId: 'fd3c5715-8386-4cb6-9969-748ccf424146',
    });
    expect([inv.cmd, ...inv.args]).toEqual([
      'npx',
      '@google/gemini-cli',
      '-p',
      GEMINI_PROMPT_FLAG,
      '-o',
      'stream-json',
      '-m',
      'gemini-2.5-pro',
      '-r',
      'fd3c5715-8386-4cb6-9969-748ccf424146',
      '--approval-mode',
      'yolo',
    ]);
  });

  it('resumes only a UUID: `latest` or an index would pick some other session', () => {
    expect(geminiAdapter.isValidSessionId('fd3c5715-8386-4cb6-9969-748ccf424146')).toBe(true);
    for (const id of ['latest', '3', '--yolo', 'ses_dce58ce4affeSKdappVOkAJGBr']) expect(geminiAdapter.isValidSessionId(id)).toBe(false);
    expect(() => buildGeminiInvocation({ ...base, resumeSessionId: 'latest' })).toThrow();
  });

  it('text output leaves -o to its default', () => {
    expect(buildGeminiInvocation({ ...base, outputFormat: 'text' }).args).toEqual(['-p', GEMINI_PROMPT_FLAG, '--approval-mode', 'yolo']);
  });

  it('maps ALLOWED_TOOLS to an approval mode and says once what it cannot honour', () => {
    expect(approvalModeFor(['Read', 'Glob'])).toBe('default');
    expect(approvalModeFor(['Read', 'Edit'])).toBe('yolo');
    expect(approvalModeFor(['Bash(git status)'])).toBe('yolo');
    expect(approvalModeFor([])).toBe('default');
    const [warning] = geminiStartupWarnings({ allowedTools: splitAllowedTools(DEFAULT_ALLOWED_TOOLS) });
    expect(warning).toMatch(/cannot restrict tools.*yolo.*Bash\(git add \*\)/);
    expect(geminiStartupWarnings({ allowedTools: ['Read'] })[0]).toMatch(/only read-only tools/);
    expect(geminiStartupWarnings({ allowedTools: ['Read'], effort: 'high' })).toHaveLength(2);
  });
});
