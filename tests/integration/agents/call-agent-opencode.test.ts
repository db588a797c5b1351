// A one-shot call (ralph-import) through the OpenCode adapter, against the fake opencode: the
// answer's text comes back, and ralph's permission config is merged into the user's own
// OPENCODE_CONFIG_CONTENT (their provider settings survive), as in a loop.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callAgent } from '../../../lib/agent-run/one-off-call.js';
import { openCodeAdapter } from '../../../lib/agents/opencode.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { hostExecution, type Sandbox } from '../../../lib/sandbox/sandbox.js';
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

describe('callAgent in a sandbox that hands the call files', () => {
  it("gives the call the sandbox's files as descriptors 3, … (bubblewrap's seccomp filter), as a loop's call gets them", async () => {
    fake = withFakeAgent('opencode', { defaults: { text: 'PLAN TEXT', status: { STATUS: 'COMPLETE' } } });
    const filter = join(fake.root, 'filter.bin');
    const seen = join(fake.root, 'fd3.txt');
    writeFileSync(filter, 'the filter bytes');
    const host = hostExecution();
    // A wrapper as a sandbox's: it reads descriptor 3 before it runs the agent.
    const sandbox: Sandbox = {
      ...host,
      wrap: (invocation, env) => {
        const inner = host.wrap(invocation, env);
        return { ...inner, cmd: 'sh', args: ['-c', 'cat <&3 > "$0"; exec "$@"', seen, inner.cmd, ...inner.args], inheritFiles: [filter] };
      },
    };
    const result = await callAgent({
      agent: { adapter: openCodeAdapter, command: 'opencode', sandbox },
      prompt: 'Convert this.',
      allowedTools: ['Read'],
      cwd: fake.root,
      env: fake.env,
      runner: nodeProcessRunner,
      timeoutMs: 30_000,
      now: () => Date.now(),
    });
    expect(result.ok).toBe(true);
    expect(readFileSync(seen, 'utf8')).toBe('the filter bytes');
  });
});
