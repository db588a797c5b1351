// The Codex adapter against every recorded run of the real CLI (tests/fixtures/agent-clis/
// codex-0.169.0): the thread id, the final answer, the usage, the tool events and the failure
// kind of each label; and the exact argv of a fresh and a resumed call.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCodexInvocation, classifyCodexRun, codexAdapter, sandboxFor } from '../../../lib/agents/codex.js';
import { createCodexOutputReader, readCodexOutput } from '../../../lib/agents/codex-events.js';
import { findAgent } from '../../../lib/agents/registry.js';
import { parseRalphStatus } from '../../../lib/analysis/ralph-status.js';

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/agent-clis/codex-0.169.0');
const NOW = Date.parse('2026-12-01T12:00:00Z');

function recording(label: string) {
  const read = (ext: string) => readFileSync(join(DIR, `${label}.${ext}`), 'utf8');
  return { stdout: read('stdout'), stderr: read('stderr'), rc: Number(read('rc').trim()) };
}

function classify(label: string, timedOut = false) {
  const r = recording(label);
  const summary = readCodexOutput(r.stdout);
  return { summary, failure: classifyCodexRun({ exitCode: r.rc, timedOut, summary, stderrTail: r.stderr, outputFormat: 'json' }, NOW) };
}

const EXPECTED: Record<string, { kind: string; thread: string | null; usage?: { input: number; output: number; cacheRead: number } }> = {
  happy: { kind: 'ok', thread: '01a23199-8da2-76b3-b1de-22d0316795ba', usage: { input: 200, output: 60, cacheRead: 1000 } },
  resume: { kind: 'ok', thread: '01a23199-8da2-76b3-b1de-22d0316795ba', usage: { input: 400, output: 120, cacheRead: 2000 } },
  resume2: { kind: 'ok', thread: '01a23199-8da2-76b3-b1de-22d0316795ba', usage: { input: 600, output: 180, cacheRead: 3000 } },
  tool: { kind: 'ok', thread: '01a23199-b1b4-7b32-a230-4293c9b13162', usage: { input: 400, output: 120, cacheRead: 2000 } },
  tool_ro: { kind: 'ok', thread: '01a231b1-cc47-7e41-8583-c675e866f931', usage: { input: 400, output: 120, cacheRead: 2000 } },
  cfgbase: { kind: 'ok', thread: '01a2319c-483e-7042-9264-8bf6c26fb08d', usage: { input: 200, output: 60, cacheRead: 1000 } },
  '401': { kind: 'auth', thread: '01a23199-e06b-73a2-9ce0-bd50730d7c34' },
  nokey: { kind: 'auth', thread: '01a2319a-d399-7fd3-93aa-3c3494237f02' },
  '429': { kind: 'transient', thread: '01a23199-c90c-70c3-a176-2b1f7d38f184' },
  '500': { kind: 'transient', thread: '01a23199-fd2f-7e42-bcbe-b5836ce3f464' },
  envbase: { kind: 'transient', thread: '01a2319a-d736-7692-a820-b3fea4c24002' },
  quota: { kind: 'usage_limit', thread: '01a2319a-5f37-7e00-8ff0-62c6aac0732b' },
  resume_bad: { kind: 'session_not_found', thread: null },
};

describe('every recorded Codex run', () => {
  it('has an expectation here (a new recording must be added to this table)', () => {
    const labels = readdirSync(DIR)
      .filter((f) => f.endsWith('.stdout'))
      .map((f) => f.replace(/\.stdout$/, ''));
    expect(labels.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [label, expected] of Object.entries(EXPECTED)) {
    it(`${label}: ${expected.kind}, thread ${expected.thread ?? 'none'}`, () => {
      const { summary, failure } = classify(label);
      expect(failure.kind).toBe(expected.kind);
      expect(summary.sessionId).toBe(expected.thread);
      if (expected.usage) {
        expect(summary.usage).toMatchObject({ ...expected.usage, cacheCreation: 0 });
        // The final answer carries the RALPH_STATUS block ralph reads.
        expect(parseRalphStatus(summary.resultText)).toMatchObject({ status: 'COMPLETE', exitSignal: true });
        expect(summary.hasResult).toBe(true);
        expect(summary.isError).toBe(false);
      }
    });
  }

  it('401 is an auth failure with the fix; the message is the one Codex gave up with', () => {
    const { failure } = classify('401');
    expect(failure).toMatchObject({ kind: 'auth', message: expect.stringContaining('401 Unauthorized: Incorrect API key provided') });
    expect(failure.kind === 'auth' && failure.fix).toMatch(/codex login.*OPENAI_API_KEY/);
  });

  it('a missing key variable is an auth failure before any request', () => {
    expect(classify('nokey').failure).toMatchObject({ kind: 'auth', message: 'Missing environment variable: `MOCK_API_KEY`.' });
  });

  it("429 after the CLI's five retries is a rate limit ralph backs off from, not a usage limit", () => {
    expect(classify('429').failure).toEqual({ kind: 'transient', reason: 'rate_limited', message: 'exceeded retry limit, last status: 429 Too Many Requests' });
  });

  it('500 (high demand) is server trouble; a lost network is network trouble', () => {
    expect(classify('500').failure).toMatchObject({ kind: 'transient', reason: 'server_error' });
    expect(classify('envbase').failure).toMatchObject({ kind: 'transient', reason: 'network' });
  });

  it("quota exhaustion is a usage limit with the CLI's message", () => {
    const { failure } = classify('quota');
    expect(failure).toMatchObject({
      kind: 'usage_limit',
      message: 'Quota exceeded. Check your plan and billing details.',
      usageLimit: { kind: 'usage_limit', source: 'text' },
    });
  });

  it('an unknown resume id (no rollout found, no JSON) is session_not_found', () => {
    expect(classify('resume_bad').failure).toMatchObject({
      kind: 'session_not_found',
      message: expect.stringContaining('no rollout found for thread id 01a23199-0000-7000-8000-000000000000'),
    });
  });

  it('our own timeout is a timeout whatever the output', () => {
    expect(classify('envbase', true).failure).toEqual({ kind: 'timeout' });
  });

  it('a subscription limit that says when to try again waits until then', () => {
    const summary = readCodexOutput(
      '{"type":"thread.started","thread_id":"t-1"}\n{"type":"turn.failed","error":{"message":"You\'ve hit your usage limit. Upgrade to Pro or try again in 2 hours 5 minutes."}}\n',
    );
    const failure = classifyCodexRun({ exitCode: 1, timedOut: false, summary, stderrTail: '', outputFormat: 'json' }, NOW);
    expect(failure).toMatchObject({ kind: 'usage_limit', usageLimit: { resetAt: NOW + 2 * 3_600_000 + 5 * 60_000 } });
  });

  it('exit 0 without turn.completed (cut short) is a failed run', () => {
    const summary = readCodexOutput('{"type":"thread.started","thread_id":"t-1"}\n{"type":"turn.started"}\n');
    expect(classifyCodexRun({ exitCode: 0, timedOut: false, summary, stderrTail: '', outputFormat: 'json' }, NOW).kind).toBe('failed');
  });
});

describe('the live view of a Codex run', () => {
  it('shows the command in use and the answer as they arrive, even split across chunks', () => {
    const reader = createCodexOutputReader({ outputFormat: 'json', showToolArgs: true });
    const bytes = Buffer.from(recording('tool').stdout, 'utf8');
    const activity = [...reader.push(bytes.subarray(0, 333)), ...reader.push(bytes.subarray(333))];
    const { summary, activity: rest } = reader.finish();
    const all = [...activity, ...rest];
    expect(all.map((a) => a.tool).filter(Boolean)).toEqual(["Bash: /bin/bash -lc 'ls -1'"]);
    expect(all.map((a) => a.text).join('')).toContain('---RALPH_STATUS---');
    expect(summary.sessionId).toBe('01a23199-b1b4-7b32-a230-4293c9b13162');
  });
});

describe('the Codex call', () => {
  const base = { command: 'codex', prompt: 'Do the plan.\n', outputFormat: 'json' as const, allowedTools: ['Write', 'Read', 'Bash(git *)'] };

  it('is registered, with a cumulative usage', () => {
    expect(findAgent('codex')).toBe(codexAdapter);
    expect(codexAdapter.capabilities.cumulativeUsage).toBe(true);
  });

  it('fresh: exec --json with the sandbox and model, the prompt and context on stdin only', () => {
    const call = buildCodexInvocation({ ...base, model: 'gpt-5.5', loopContext: 'Loop 2 of the plan' });
    expect([call.cmd, ...call.args]).toEqual(['codex', 'exec', '--json', '--skip-git-repo-check', '-s', 'workspace-write', '-m', 'gpt-5.5', '-']);
    expect(call.stdin).toContain('Do the plan.');
    expect(call.stdin).toContain('Loop 2 of the plan');
    expect(call.args.join(' ')).not.toContain('plan');
  });

  it('resumed: `resume <thread_id> -` after the exec options', () => {
    const call = buildCodexInvocation({ ...base, command: 'npx @openai/codex', resumeSessionId: '01a23199-8da2-76b3-b1de-22d0316795ba' });
    expect([call.cmd, ...call.args]).toEqual([
      'npx',
      '@openai/codex',
      'exec',
      '--json',
      '--skip-git-repo-check',
      '-s',
      'workspace-write',
      'resume',
      '01a23199-8da2-76b3-b1de-22d0316795ba',
      '-',
    ]);
  });

  it('refuses an id shaped like a flag', () => {
    expect(() => buildCodexInvocation({ ...base, resumeSessionId: '--dangerously-bypass-approvals-and-sandbox' })).toThrow();
  });

  it('ALLOWED_TOOLS maps to the sandbox: read-only unless a write, edit or bash tool is allowed; said once', () => {
    expect(sandboxFor(['Read', 'Glob', 'Grep'])).toBe('read-only');
    expect(sandboxFor([])).toBe('read-only');
    expect(sandboxFor(['Read', 'Edit'])).toBe('workspace-write');
    expect(sandboxFor(['Bash(npm test)'])).toBe('workspace-write');
    expect(codexAdapter.startupWarnings({ allowedTools: ['Read'] })).toEqual([expect.stringMatching(/cannot honour ALLOWED_TOOLS tool by tool.*read-only/)]);
  });

  it('reads its version from `codex --version`', () => {
    expect(codexAdapter.parseVersion('codex-cli 0.169.0\n')).toBe('0.169.0');
  });
});
