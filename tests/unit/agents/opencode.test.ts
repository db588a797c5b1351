// The OpenCode adapter against every recorded run of the real CLI 1.18.33: text parts carry the
// answer, tokens and cost are summed over the steps, an APIError event says which failure it is,
// "Session not found" means a fresh session, auto-rejected permissions are denials. Plus the
// argv and the permission config ALLOWED_TOOLS becomes.

import { describe, expect, it } from 'vitest';
import { buildOpenCodeInvocation, openCodeAdapter, openCodeStartupWarnings } from '../../../lib/agents/opencode.js';
import { mergeOpenCodeConfig, openCodePermissions } from '../../../lib/agents/opencode-permissions.js';
import { DEFAULT_ALLOWED_TOOLS, splitAllowedTools } from '../../../lib/config/schema.js';
import { agentRecordingLabels, readAgentRecording, replayThroughAdapter } from '../../helpers/agent-recordings.js';

const CLI = 'opencode-1.18.33';
const replay = (label: string) => replayThroughAdapter(openCodeAdapter, readAgentRecording(CLI, label));
const STEP = { input: 200, output: 60, cacheRead: 1000, cacheCreation: 0 };

describe('OpenCode recordings', () => {
  it('covers every recorded label', () => {
    expect(agentRecordingLabels(CLI)).toEqual(['401', '429', '500', 'happy', 'perm_ask', 'perm_deny', 'quota', 'r1', 'r2', 'rbad', 'tool']);
  });

  it.each(['happy', 'r1', 'r2'])('%s: ok, the ses_ id, the RALPH_STATUS text, one step of tokens and its cost', (label) => {
    const { summary, failure } = replay(label);
    expect(failure).toEqual({ kind: 'ok' });
    expect(summary.sessionId).toMatch(/^ses_[A-Za-z0-9]+$/);
    expect(summary.resultText).toMatch(/^Did the work\.\n---RALPH_STATUS---[\s\S]*EXIT_SIGNAL: true[\s\S]*---END_RALPH_STATUS---$/);
    expect(summary.usage).toEqual(STEP);
    expect(summary.totalCostUsd).toBeCloseTo(0.0018, 10);
    expect(summary.sinceLastResultCostUsd).toBeCloseTo(0.0018, 10);
  });

  it('r2 resumed r1 (-s): one session id', () => {
    expect(replay('r2').summary.sessionId).toBe(replay('r1').summary.sessionId);
  });

  it('tool: the bash call is shown, and both steps are summed (tokens and cost)', () => {
    const { summary, failure, activity } = replay('tool');
    expect(failure.kind).toBe('ok');
    expect(activity.map((a) => a.tool).filter(Boolean)).toEqual(['bash: ls -1']);
    expect(summary.usage).toEqual({ input: 1400, output: 120, cacheRead: 1000, cacheCreation: 0 });
    expect(summary.totalCostUsd).toBeCloseTo(0.0063, 10);
    expect(summary.numTurns).toBe(2);
    expect(summary.permissionDenials).toEqual([]);
  });

  it('perm_ask: the auto-rejected bash call is a permission denial; the run itself ended normally', () => {
    const { summary, failure } = replay('perm_ask');
    expect(failure.kind).toBe('ok');
    expect(summary.permissionDenials).toEqual([{ toolName: 'bash', toolUseId: 'call_2', input: { command: 'ls -1', description: 'list files' } }]);
    expect(summary.resultText).toBe('');
  });

  it('perm_deny: a denied tool is not offered at all, so nothing is denied at run time; the schema error is no denial', () => {
    const { summary, failure } = replay('perm_deny');
    expect(failure.kind).toBe('ok');
    expect(summary.permissionDenials).toEqual([]);
    expect(summary.resultText).toContain('STATUS: COMPLETE');
  });

  it('401: auth with the provider message and the fix', () => {
    const { summary, failure } = replay('401');
    expect(summary.isError).toBe(true);
    expect(summary.apiErrorStatus).toBe(401);
    expect(failure).toMatchObject({ kind: 'auth', message: 'Incorrect API key provided.' });
    expect(failure.kind === 'auth' && failure.fix).toMatch(/opencode auth login/);
  });

  it('quota (429 insufficient_quota): a usage limit', () => {
    expect(replay('quota').failure).toMatchObject({ kind: 'usage_limit', message: expect.stringContaining('exceeded your current quota') });
  });

  it('429 (a rate limit OpenCode gave up retrying): transient, backed off', () => {
    expect(replay('429').failure).toMatchObject({ kind: 'transient', reason: 'rate_limited' });
  });

  it('500: transient server error', () => {
    expect(replay('500').failure).toMatchObject({ kind: 'transient', reason: 'server_error', message: 'internal error' });
  });

  it('rbad ("Error: Session not found", exit 1, no JSON): session_not_found', () => {
    const { summary, failure } = replay('rbad');
    expect(summary.sessionId).toBeNull();
    expect(failure.kind).toBe('session_not_found');
  });

  it('exit 0 without any finished step is a failed run', () => {
    const failure = openCodeAdapter.classifyFailure(
      {
        exitCode: 0,
        timedOut: false,
        summary: openCodeAdapter.createOutputReader({ outputFormat: 'json', showToolArgs: false }).finish().summary,
        stderrTail: '',
        outputFormat: 'json',
      },
      0,
    );
    expect(failure.kind).toBe('failed');
  });
});

describe('the OpenCode argv', () => {
  const base = {
    command: 'opencode',
    prompt: '# Task\nSECRET_PROJECT_TEXT\n',
    outputFormat: 'json' as const,
    allowedTools: [] as string[],
    loopContext: 'Loop 2 context',
  };

  it('is `run --format json`; the message is only on stdin', () => {
    const inv = buildOpenCodeInvocation(base);
    expect([inv.cmd, ...inv.args]).toEqual(['opencode', 'run', '--format', 'json']);
    expect(inv.stdin).toContain('SECRET_PROJECT_TEXT');
    expect(inv.stdin).toContain('Loop 2 context');
    expect(inv.env).toBeUndefined();
  });

  it('passes -m provider/model and resumes with -s ses_…', () => {
    const inv = buildOpenCodeInvocation({ ...base, model: 'anthropic/claude-sonnet-4', resumeSessionId: 'ses_dce55ef0affejsmtj4jvuVVIQi' });
    expect(inv.args).toEqual(['run', '--format', 'json', '-m', 'anthropic/claude-sonnet-4', '-s', 'ses_dce55ef0affejsmtj4jvuVVIQi']);
  });

  it('resumes only a ses_ id', () => {
    expect(openCodeAdapter.isValidSessionId('ses_dce55ef0affejsmtj4jvuVVIQi')).toBe(true);
    for (const id of ['fd3c5715-8386-4cb6-9969-748ccf424146', '--continue', 'ses_']) expect(openCodeAdapter.isValidSessionId(id)).toBe(false);
  });
});

describe('ALLOWED_TOOLS as OpenCode permissions', () => {
  it('the default list allows edits and the listed git/npm commands, denies every other command and the web', () => {
    const mapped = openCodePermissions(splitAllowedTools(DEFAULT_ALLOWED_TOOLS))!;
    expect(mapped.unmapped).toEqual([]);
    expect(mapped.permission.edit).toBe('allow');
    expect(mapped.permission.webfetch).toBe('deny');
    const bash = mapped.permission.bash as Record<string, string>;
    expect(Object.keys(bash)[0]).toBe('*');
    expect(bash).toMatchObject({ '*': 'deny', 'git add *': 'allow', 'git status': 'allow', 'npm *': 'allow', pytest: 'allow' });
  });

  it('read-only tools leave edits and the shell denied; Bash alone allows every command', () => {
    expect(openCodePermissions(['Read', 'Glob'])!.permission).toMatchObject({ edit: 'deny', bash: 'deny' });
    expect(openCodePermissions(['Bash', 'Write'])!.permission).toMatchObject({ edit: 'allow', bash: 'allow' });
    expect(openCodePermissions(['Bash(git log:*)'])!.permission.bash).toEqual({ '*': 'deny', 'git log *': 'allow' });
  });

  it("an empty ALLOWED_TOOLS sets nothing (OpenCode's own config decides), and says so", () => {
    expect(openCodePermissions([])).toBeNull();
    expect(openCodeStartupWarnings({ allowedTools: [] })[0]).toMatch(/ALLOWED_TOOLS is empty/);
    expect(openCodeStartupWarnings({ allowedTools: ['Read', 'mcp__github'] })[0]).toMatch(/no permission for mcp__github/);
  });

  it("is passed in OPENCODE_CONFIG_CONTENT, over the user's own config, keeping the rest of it", () => {
    const user = JSON.stringify({
      model: 'anthropic/x',
      permission: { webfetch: 'allow', lsp: 'allow' },
      provider: { a: { options: { baseURL: 'http://h' } } },
    });
    const inv = buildOpenCodeInvocation({
      command: 'opencode',
      prompt: 'p',
      outputFormat: 'json',
      allowedTools: ['Edit', 'Bash(npm test)'],
      inheritedEnv: { OPENCODE_CONFIG_CONTENT: user },
    });
    const config = JSON.parse(inv.env!.OPENCODE_CONFIG_CONTENT!);
    expect(config.model).toBe('anthropic/x');
    expect(config.provider.a.options.baseURL).toBe('http://h');
    expect(config.permission).toMatchObject({ lsp: 'allow', webfetch: 'deny', edit: 'allow', bash: { '*': 'deny', 'npm test': 'allow' } });
  });

  it('a user config that is no JSON object is passed on untouched, and a permission string becomes "*"', () => {
    expect(mergeOpenCodeConfig('{not json', { edit: 'deny' })).toBe('{not json');
    expect(mergeOpenCodeConfig('[1]', { edit: 'deny' })).toBe('[1]');
    expect(JSON.parse(mergeOpenCodeConfig('{"permission":"allow"}', { edit: 'deny' })).permission).toEqual({ '*': 'allow', edit: 'deny' });
    expect(JSON.parse(mergeOpenCodeConfig(undefined, { edit: 'deny' }))).toEqual({ permission: { edit: 'deny' } });
  });
});
