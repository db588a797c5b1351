// Secrets never reach ralph's logs: API keys and tokens from the environment (any variable whose
// name says TOKEN, SECRET, KEY, PASSWORD or CREDENTIAL), and token-shaped strings the agent
// prints (its text, a tool's command line, its result, its status block), stay out of ralph.log,
// live.log, the agent transcripts, metrics.jsonl, status.json, .response_analysis, the run
// record and the next call's loop context — with --live, --show-tool-args and --verbose on,
// through the real `ralph` command — and out of what the terminal shows and every argv.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude, type FakeScenario, type FakeStep } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

const random = (n: number) =>
  Array.from({ length: n }, () => 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'[Math.floor(Math.random() * 56)]).join('');

const ENV_SECRETS = {
  ANTHROPIC_API_KEY: `sk-ant-api03-${random(40)}`,
  CLAUDE_CODE_OAUTH_TOKEN: `sk-ant-oat01-${random(40)}`,
  GITHUB_TOKEN: `ghp_${random(36)}`,
  GH_TOKEN: `gho_${random(36)}`,
  // Shapeless values: masked because of their variable's name.
  AWS_SECRET_ACCESS_KEY: random(40),
  ANTHROPIC_AUTH_TOKEN: random(32),
  DATABASE_PASSWORD: random(12),
  GOOGLE_APPLICATION_CREDENTIALS_JSON: random(24),
};
// Token-shaped strings that only the agent's output carries.
const OUTPUT_SECRETS = {
  anthropicKey: `sk-ant-api03-${random(40)}`,
  githubPat: `github_pat_${random(22)}_${random(40)}`,
  classicPat: `ghp_${random(36)}`,
  bearer: `${random(20)}.${random(30)}`,
  oauthToken: `gho_${random(36)}`,
  serverToken: `ghs_${random(36)}`,
  openAiProjectKey: `sk-proj-${random(48)}`,
  slackToken: `xoxb-${random(12)}-${random(24)}`,
  awsKeyId: `AKIA${random(16)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, 'X')}`,
};

let project: TmpProject;
let fake: FakeClaude;
let result: CliResult;

beforeAll(async () => {
  const steps: FakeStep[] = [
    { text: `Found these in .env: ${ENV_SECRETS.ANTHROPIC_API_KEY} and ${ENV_SECRETS.GITHUB_TOKEN}; also ${OUTPUT_SECRETS.anthropicKey}` },
    {
      tool: 'Bash',
      input: {
        command: `curl -H "Authorization: Bearer ${OUTPUT_SECRETS.bearer}" "https://api.github.com/user?t=${OUTPUT_SECRETS.classicPat}"`,
        description: 'check',
      },
      stdout: `token=${OUTPUT_SECRETS.githubPat}`,
    },
    { text: `The OAuth token is ${ENV_SECRETS.CLAUDE_CODE_OAUTH_TOKEN}, gh uses ${ENV_SECRETS.GH_TOKEN}` },
    {
      text: `AWS ${OUTPUT_SECRETS.awsKeyId} / ${ENV_SECRETS.AWS_SECRET_ACCESS_KEY}; auth ${ENV_SECRETS.ANTHROPIC_AUTH_TOKEN}; db ${ENV_SECRETS.DATABASE_PASSWORD}`,
    },
    {
      text: `Also ${OUTPUT_SECRETS.oauthToken}, ${OUTPUT_SECRETS.serverToken}, ${OUTPUT_SECRETS.openAiProjectKey}, ${OUTPUT_SECRETS.slackToken}, ${ENV_SECRETS.GOOGLE_APPLICATION_CREDENTIALS_JSON}`,
    },
  ];
  // The secrets the old redactor did not know come first, where the log line quotes the result.
  const leftovers =
    `${ENV_SECRETS.AWS_SECRET_ACCESS_KEY} ${ENV_SECRETS.ANTHROPIC_AUTH_TOKEN} ${OUTPUT_SECRETS.oauthToken} ${OUTPUT_SECRETS.openAiProjectKey} ` +
    `${OUTPUT_SECRETS.slackToken} ${OUTPUT_SECRETS.awsKeyId} ${Object.values(ENV_SECRETS).join(' ')}`;
  const scenario: FakeScenario = {
    calls: [
      {
        steps,
        resultText: `Done; key ${OUTPUT_SECRETS.anthropicKey} and ${OUTPUT_SECRETS.githubPat} rotated. Leftovers: ${leftovers}`,
        writeFiles: { 'src/a.txt': 'a' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false, RECOMMENDATION: `use ${ENV_SECRETS.AWS_SECRET_ACCESS_KEY}` },
      },
      // The second call is told about the first one (its loop context quotes the result); files
      // rewritten each loop (live.log, .response_analysis) then hold the second call's output.
      {
        steps,
        resultText: `${leftovers} are still in .env`,
        writeFiles: { 'src/b.txt': 'b' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false, RECOMMENDATION: `use ${OUTPUT_SECRETS.openAiProjectKey}` },
      },
    ],
  };
  fake = withFakeClaude(scenario, { env: ENV_SECRETS });
  const rc = `${FAST_LOOP_RC}ALLOWED_TOOLS="Write,Read,Edit,Bash(curl *)"\n`;
  project = tmpProject(ralphProjectTree({ '.ralphrc': rc, '.ralph/fix_plan.md': '- [ ] rotate keys\n' }), { git: true });
  result = await runCli('ralph', ['--max-loops', '2', '--live', '--show-tool-args', '--verbose'], { cwd: project.dir, env: { ...fake.env, ...ENV_SECRETS } });
}, 60_000);

afterAll(() => {
  project?.cleanup();
  fake?.cleanup();
});

const ALL_SECRETS = { ...ENV_SECRETS, ...OUTPUT_SECRETS };
const leaksIn = (text: string) =>
  Object.entries(ALL_SECRETS)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);

describe('secrets in the environment and in agent output', () => {
  it('the run really saw them (the agent got the env, its output went through the loop)', () => {
    expect(result.code, result.stderr).toBe(3);
    expect(fake.runs()).toHaveLength(2);
  });

  // The list, plus what the monitor shows (progress.json carries the last tool call).
  it.each(['.ralph/logs/ralph.log', '.ralph/live.log', '.ralph/logs/metrics.jsonl', '.ralph/progress.json', '.ralph/status.json', '.ralph/.response_analysis'])(
    '%s holds none of them',
    (file) => {
      const text = readFileSync(project.path(file), 'utf8');
      expect(text.length).toBeGreaterThan(0);
      expect(leaksIn(text)).toEqual([]);
    },
  );

  it('the run record holds none of them (its summary and its logs)', () => {
    const names = readdirSync(project.path('.ralph/sessions')).filter((n) => n.endsWith('.json') || n.endsWith('.jsonl'));
    expect(names.some((n) => n.endsWith('.observations.jsonl'))).toBe(true);
    for (const name of names) expect(leaksIn(readFileSync(project.path(`.ralph/sessions/${name}`), 'utf8'))).toEqual([]);
  });

  it('the agent transcripts are redacted too (still the whole stream, owner-only)', () => {
    const outputs = readdirLogs('claude_output_');
    expect(outputs).toHaveLength(2);
    const first = readFileSync(project.path(`.ralph/logs/${outputs.sort()[0]}`), 'utf8');
    expect(first).toContain('Found these in .env');
    expect(first).toContain('[REDACTED]');
    // Still one JSON object a line: redaction only replaced text inside strings.
    for (const line of first.split('\n').filter((l) => l.trim() !== '')) expect(() => JSON.parse(line)).not.toThrow();
    for (const name of [...outputs, ...readdirLogs('claude_stderr_')]) {
      expect(leaksIn(readFileSync(project.path(`.ralph/logs/${name}`), 'utf8'))).toEqual([]);
      expect(statSync(project.path(`.ralph/logs/${name}`)).mode & 0o777).toBe(0o600);
    }
  });

  it('live.log is owner-only like the other transcripts', () => {
    expect(statSync(project.path('.ralph/live.log')).mode & 0o777).toBe(0o600);
  });

  it("the next call's loop context quotes the previous result, on stdin, redacted; no argv holds any", () => {
    const [first, second] = fake.runs();
    const context = second!.stdin!.slice(second!.stdin!.indexOf('## Ralph loop context'));
    expect(context).toContain('Previous: Done; key [REDACTED]');
    expect(leaksIn(second!.stdin!)).toEqual([]);
    for (const run of [first!, second!]) expect(leaksIn(run.argv.join('\n'))).toEqual([]);
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
