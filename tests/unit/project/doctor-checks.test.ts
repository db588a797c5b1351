import { describe, expect, it } from 'vitest';
import { formatDoctorReport, isReady, runDoctorChecks, type DoctorFacts } from '../../../lib/project/doctor-checks.js';

const CLAUDE = { name: 'claude', label: 'Claude Code', installHint: 'npm install -g @anthropic-ai/claude-code', commandKey: 'CLAUDE_CODE_CMD' };

const ready: DoctorFacts = {
  node: { version: '22.1.0', minimum: '20.19.0', supported: true },
  agent: { ...CLAUDE, command: 'claude', version: '2.1.332', minimum: '2.0.76', tooOld: false },
  auth: { envVar: null, credentialsFile: '/home/u/.claude/.credentials.json', keychainPlatform: false },
  git: { version: '2.43.0', repo: true, userName: 'A', userEmail: 'a@example.com' },
  tmux: { version: 'tmux 3.4' },
  config: { error: null },
  ralphFiles: { ralphDir: true, missing: [] },
  unignored: [],
  test: { command: 'npm test', from: 'package.json', qualityGates: [] },
  sandbox: { provider: 'none' },
};

const level = (facts: DoctorFacts, name: string) => runDoctorChecks(facts).find((c) => c.name === name)?.level;

describe('runDoctorChecks', () => {
  it('is ready when every check passes, and says so', () => {
    const checks = runDoctorChecks(ready);
    expect(checks.every((c) => c.level === 'ok')).toBe(true);
    expect(isReady(checks)).toBe(true);
    expect(formatDoctorReport(checks).at(-1)).toBe('Ready to run ralph.');
  });

  it('warns, without failing, for what a run can do without: tmux, an old CLI, a login only the macOS keychain holds, no test command', () => {
    const facts: DoctorFacts = {
      ...ready,
      tmux: { version: null },
      agent: { ...CLAUDE, command: 'claude', version: '1.0.0', minimum: '2.0.76', tooOld: true },
      auth: { envVar: null, credentialsFile: null, keychainPlatform: true },
      test: { command: null, from: null, qualityGates: [] },
    };
    const checks = runDoctorChecks(facts);
    for (const name of ['tmux', 'Claude Code CLI', 'Claude login', 'test command']) expect(level(facts, name), name).toBe('warn');
    expect(isReady(checks)).toBe(true);
    expect(formatDoctorReport(checks).at(-1)).toBe('Ready to run ralph (4 warning(s)).');
  });

  it('fails on an unreadable configuration and missing control files, each with its fix', () => {
    const badConfig = runDoctorChecks({ ...ready, config: { error: 'Invalid MAX_CALLS_PER_HOUR' } });
    expect(badConfig.find((c) => c.name === 'configuration')).toMatchObject({ level: 'fail', fix: expect.stringContaining('ralph --config') });
    const missing = runDoctorChecks({ ...ready, ralphFiles: { ralphDir: true, missing: ['.ralph/fix_plan.md'] } });
    expect(formatDoctorReport(missing)).toContain(
      '[FAIL] project files: missing .ralph/fix_plan.md — fix: ralph-enable (restores only the missing files; yours are kept)',
    );
    expect(isReady(missing)).toBe(false);
  });

  it('checks a sandbox only when one is asked for, failing with its fix when it cannot run', () => {
    expect(runDoctorChecks(ready).some((c) => c.name.startsWith('sandbox'))).toBe(false);
    expect(level({ ...ready, sandbox: { provider: 'bwrap' } }, 'sandbox (bwrap)')).toBe('ok');
    const down = runDoctorChecks({ ...ready, sandbox: { provider: 'docker', error: 'Docker daemon is not reachable', fix: 'start dockerd' } });
    expect(formatDoctorReport(down)).toContain('[FAIL] sandbox (docker): Docker daemon is not reachable: ralph would refuse to run — fix: start dockerd');
    expect(isReady(down)).toBe(false);
  });

  it('says whom the agent runs as, warns when it is root (ALLOW_ROOT_AGENT, and from where), fails when a run would refuse', () => {
    const report = (agentUser: DoctorFacts['agentUser']) =>
      formatDoctorReport(runDoctorChecks({ ...ready, agentUser })).filter((line) => line.includes('agent user'));
    expect(report({ as: 'self', uid: 1000 })).toEqual(["[OK]   agent user: the agent and the gate's commands run as you (uid 1000)"]);
    expect(report({ as: 'owner', uid: 1001 })).toEqual([
      "[OK]   agent user: the agent and the gate's commands run as uid 1001, the project's owner (ralph runs as root)",
    ]);
    expect(report({ as: 'root', uid: 0, allowRootAgent: '--allow-root-agent' })).toEqual([
      "[WARN] agent user: the agent and the gate's commands run as root; ALLOW_ROOT_AGENT=true (--allow-root-agent) — fix: on a machine that is not a throw-away one: run ralph as an ordinary user, or chown the project to one",
    ]);
    const refused = {
      error: 'ralph runs as root and the project /p belongs to root: ralph never runs the agent as root',
      fix: 'run ralph as an ordinary user',
    };
    expect(report(refused)).toEqual([
      '[FAIL] agent user: ralph runs as root and the project /p belongs to root: ralph never runs the agent as root: ralph would refuse to run — fix: run ralph as an ordinary user',
    ]);
  });

  it('shows the variables the sandbox passes the agent and those it withholds', () => {
    const env = { passed: ['ANTHROPIC_API_KEY', 'LANG', 'PATH'], withheld: ['AWS_SECRET_ACCESS_KEY', 'GH_TOKEN'] };
    const report = formatDoctorReport(runDoctorChecks({ ...ready, sandbox: { provider: 'bwrap', env } }));
    expect(report).toContain(
      '[OK]   sandbox environment: the agent gets ANTHROPIC_API_KEY, LANG, PATH; 2 other(s) withheld: AWS_SECRET_ACCESS_KEY, GH_TOKEN (add names with SANDBOX_ENV)',
    );
  });

  it("checks another agent's sign-in as its adapter declares it: ok with its key, a warning with the fix without", () => {
    const CODEX = { name: 'codex', label: 'Codex', installHint: 'npm install -g @openai/codex', commandKey: 'CODEX_CMD' };
    const codex: DoctorFacts = { ...ready, agent: { ...CODEX, command: 'codex', version: '0.169.0', minimum: '0.0.0', tooOld: false } };
    const declared = {
      keychainPlatform: false,
      declared: { envVars: ['OPENAI_API_KEY', 'CODEX_API_KEY'], missing: 'warn' as const, fix: 'run: codex login (or export OPENAI_API_KEY)' },
    };
    expect(
      runDoctorChecks({ ...codex, auth: { ...declared, envVar: 'OPENAI_API_KEY', credentialsFile: null } }).find((c) => c.name === 'Codex login'),
    ).toMatchObject({ level: 'ok', detail: 'OPENAI_API_KEY is set' });
    expect(runDoctorChecks({ ...codex, auth: { ...declared, envVar: null, credentialsFile: null } }).find((c) => c.name === 'Codex login')).toEqual({
      level: 'warn',
      name: 'Codex login',
      detail: 'no OPENAI_API_KEY, CODEX_API_KEY or credentials file',
      fix: 'run: codex login (or export OPENAI_API_KEY)',
    });
  });
});
