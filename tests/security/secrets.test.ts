// Secrets never reach ralph's logs: API keys and tokens from the environment, and token-shaped
// strings the agent prints (its text, a tool's command line, its result), stay out of ralph.log,
// live.log and metrics.jsonl — with --live, --show-tool-args and --verbose on, through the real
// `ralph` command — and out of what the terminal shows.

import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

const random = (n: number) => Array.from({ length: n }, () => 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'[Math.floor(Math.random() * 56)]).join('');

const ENV_SECRETS = {
  ANTHROPIC_API_KEY: `sk-ant-api03-${random(40)}`,
  CLAUDE_CODE_OAUTH_TOKEN: `sk-ant-oat01-${random(40)}`,
  GITHUB_TOKEN: `ghp_${random(36)}`,
  GH_TOKEN: `gho_${random(36)}`,
};
// Token-shaped strings that only the agent's output carries.
const OUTPUT_SECRETS = {
  anthropicKey: `sk-ant-api03-${random(40)}`,
  githubPat: `github_pat_${random(22)}_${random(40)}`,
  classicPat: `ghp_${random(36)}`,
  bearer: `${random(20)}.${random(30)}`,
};

let project: TmpProject;
let fake: FakeClaude;
let result: CliResult;

beforeAll(async () => {
  const scenario = {
    calls: [
      {
        steps: [
          { text: `Found these in .env: ${ENV_SECRETS.ANTHROPIC_API_KEY} and ${ENV_SECRETS.GITHUB_TOKEN}; also ${OUTPUT_SECRETS.anthropicKey}` },
          {
            tool: 'Bash',
            input: { command: `curl -H "Authorization: Bearer ${OUTPUT_SECRETS.bearer}" "https://api.github.com/user?t=${OUTPUT_SECRETS.classicPat}"`, description: 'check' },
            stdout: `token=${OUTPUT_SECRETS.githubPat}`,
          },
          { text: `The OAuth token is ${ENV_SECRETS.CLAUDE_CODE_OAUTH_TOKEN}, gh uses ${ENV_SECRETS.GH_TOKEN}` },
        ],
        resultText: `Done; key ${OUTPUT_SECRETS.anthropicKey} and ${OUTPUT_SECRETS.githubPat} rotated.`,
        writeFiles: { 'src/a.txt': 'a' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
      },
    ],
  };
  fake = withFakeClaude(scenario, { env: ENV_SECRETS });
  const rc = `${FAST_LOOP_RC}ALLOWED_TOOLS="Write,Read,Edit,Bash(curl *)"\n`;
  project = tmpProject(ralphProjectTree({ '.ralphrc': rc, '.ralph/fix_plan.md': '- [ ] rotate keys\n' }), { git: true });
  result = await runCli('ralph', ['--max-loops', '1', '--live', '--show-tool-args', '--verbose'], { cwd: project.dir, env: { ...fake.env, ...ENV_SECRETS } });
}, 60_000);

afterAll(() => {
  project?.cleanup();
  fake?.cleanup();
});

const ALL_SECRETS = { ...ENV_SECRETS, ...OUTPUT_SECRETS };
const leaksIn = (text: string) => Object.entries(ALL_SECRETS).filter(([, value]) => text.includes(value)).map(([name]) => name);

describe('secrets in the environment and in agent output', () => {
  it('the run really saw them (the agent got the env, its output went through the loop)', () => {
    expect(result.code, result.stderr).toBe(3);
    expect(fake.runs()).toHaveLength(1);
    // The agent's own transcript keeps them (it is the agent's output, verbatim).
    const transcript = readFileSync(project.path(`.ralph/logs/${readdirLogs('claude_output_')[0]}`), 'utf8');
    expect(leaksIn(transcript).length).toBeGreaterThan(0);
  });

  // The three, plus what the monitor shows (progress.json carries the last tool call).
  it.each(['.ralph/logs/ralph.log', '.ralph/live.log', '.ralph/logs/metrics.jsonl', '.ralph/progress.json', '.ralph/status.json'])('%s holds none of them', (file) => {
    const text = readFileSync(project.path(file), 'utf8');
    expect(text.length).toBeGreaterThan(0);
    expect(leaksIn(text)).toEqual([]);
  });

  it('the live view on the terminal and the log lines on stderr hold none of them', () => {
    expect(result.stdout).toContain('Found these in .env');
    expect(leaksIn(result.stdout)).toEqual([]);
    expect(leaksIn(result.stderr)).toEqual([]);
  });
});

function readdirLogs(prefix: string): string[] {
  return readdirSync(project.path('.ralph/logs')).filter((n) => n.startsWith(prefix));
}

describe('a denied command that carries a token', () => {
  it('the permission-denied halt on stderr masks it', async () => {
    const token = `ghp_${random(36)}`;
    const denied = withFakeClaude(
      {
        calls: [
          {
            steps: [{ tool: 'Bash', input: { command: `curl -u me:${token}`, description: 'x' } }],
            writeFiles: { 'b.txt': 'b' },
            statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
          },
        ],
      },
      { env: { GITHUB_TOKEN: token } },
    );
    const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] x\n' }), { git: true });
    try {
      const r = await runCli('ralph', ['--max-loops', '2'], { cwd: p.dir, env: { ...denied.env, GITHUB_TOKEN: token } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('EXECUTION HALTED: Permission Denied');
      expect(r.stderr, r.stderr).not.toContain(token);
      expect(readFileSync(p.path('.ralph/logs/ralph.log'), 'utf8')).not.toContain(token);
    } finally {
      p.cleanup();
      denied.cleanup();
    }
  }, 30_000);
});
