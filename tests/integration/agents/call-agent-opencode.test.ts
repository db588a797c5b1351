// A one-shot call (ralph-import) through the OpenCode adapter, against the fake opencode: the
// answer's text comes back, and ralph's permission config is merged into the user's own
// OPENCODE_CONFIG_CONTENT (their provider settings survive), as in a loop.

import { afterEach, describe, expect, it } from 'vitest';
import { callAgent } from '../../../lib/agent-run/one-off-call.js';
import { openCodeAdapter } from '../../../lib/agents/opencode.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { hostExecution } from '../../../lib/sandbox/sandbox.js';
import { withFakeAgent, type FakeAgent } from '../../helpers/fake-agent.js';

let fake: FakeAgent | undefined;
afterEach(() => fake?.cleanup());

describe('callAgent with OpenCode', () => {
  it("returns the answer and keeps the user's OPENCODE_CONFIG_CONTENT under ralph's permissions", async () => {
    fake = withFakeAgent('opencode', { defaults: { text: 'PLAN TEXT', status: { STATUS: 'COMPLETE' } } });
    const user = JSON.stringify({ provider: { mine: { options: { baseURL: 'http://127.0.0.1:9' } } } });
    const result = await callAgent({
      agent: { adapter: openCodeAdapter, command: 'opencode', sandbox: hostExecution() },
      prompt: 'Convert this.',
      allowedTools: ['Read', 'Write'],
      cwd: fake.root,
      env: { ...fake.env, OPENCODE_CONFIG_CONTENT: user },
      runner: nodeProcessRunner,
      timeoutMs: 30_000,
      now: () => Date.now(),
    });
    expect(result.ok && result.text).toMatch(/^PLAN TEXT\n---RALPH_STATUS---/);
    const [run] = fake.runs();
    expect(run!.stdin).toBe('Convert this.');
    const config = JSON.parse(run!.env.OPENCODE_CONFIG_CONTENT!);
    expect(config.provider.mine.options.baseURL).toBe('http://127.0.0.1:9');
    expect(config.permission).toMatchObject({ edit: 'allow', bash: 'deny' });
  });
});
