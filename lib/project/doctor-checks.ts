// `ralph --doctor`: from the facts gathered about this machine and project (cli/ralph/doctor.ts) to one
// line per check, each with the fix when it is not ready. Pure. A check that fails means the run
// would not start or not work; a warning means it would, with a feature missing or unknown.

import { quoteForShell } from '../text/shell-quote.js';

export type CheckLevel = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  level: CheckLevel;
  name: string;
  detail: string;
  /** What to do; only when not ok. */
  fix?: string;
}

/** Which agent the checks are about (from its adapter). */
export interface AgentIdentity {
  name: string;
  label: string;
  installHint: string;
  commandKey: string;
}

export interface DoctorFacts {
  node: { version: string; minimum: string | undefined; supported: boolean };
  /** The agent CLI ralph would run, or why none was found. */
  agent: AgentIdentity & ({ command: string; version?: string; minimum: string; tooOld: boolean } | { error: string });
  /** Which credential the agent would use, if any could be seen without calling it. */
  auth: {
    envVar: string | null;
    credentialsFile: string | null;
    keychainPlatform: boolean;
    declared?: { envVars: string[]; missing: 'fail' | 'warn'; fix: string };
  };
  git: { version: string | null; repo: boolean; userName: string | null; userEmail: string | null };
  tmux: { version: string | null };
  /** null: the configuration could not be read (the message says why). */
  config: { error: string | null };
  ralphFiles: {
    ralphDir: boolean;
    missing: string[];
    emptyPrompt?: boolean;
    legacyLayout?: boolean;
    /** Why .ralph/ cannot be written, if it cannot. */ unwritable?: string | null;
    /** With no .ralph/ here: the Ralph project this folder is inside, if any. */ enclosing?: string;
  };
  /** Ralph's state files git would still show (null: not checked, no repository). */
  unignored: string[] | null;
  test: { command: string | null; from: string | null; qualityGates: string[]; missingProgram?: string | null };
  /** The sandbox asked for (none: not asked), and what keeps it from running. */
  sandbox: { provider: string; error?: string; fix?: string; env?: { passed: string[]; withheld: string[] } };
  /**
   * Whom the agent and the gate's commands would run as: ralph's own user, the project's owner
   * (ralph is root), root (ALLOW_ROOT_AGENT), or nobody (refused: `error`). `allowRootAgent`: where
   * ALLOW_ROOT_AGENT=true comes from, when it is set. Absent: the configuration could not be read.
   */
  agentUser?: { as: 'self' | 'owner' | 'root'; uid: number; allowRootAgent?: string } | { error: string; fix: string; allowRootAgent?: string };
  /** fix_plan.md's items, read through the plan parser (absent: no plan to read). */
  plan?: { open: number; done: number; openItems: readonly string[] };
  /** The circuit breaker a run would start with, when it would halt at once (OPEN past any cooldown or auto-reset); absent: it would not. */
  breaker?: { reason: string; cooldownEndsAt: string | null };
  /** The GitHub issue a run would track (--github-issue, GITHUB_ISSUE), and whether gh is there; absent: none asked. */
  github?: { issue: string; from: string; error?: string; gh: boolean; installHint: string };
}

/** What a folder that is no git repository costs a run: said alike by --doctor, ralph and ralph-enable-ci. */
export const NOT_A_GIT_REPOSITORY = {
  detail:
    'not a git repository: ralph still runs, but it reads every file to see progress (no .gitignore), the agent cannot commit, and --backup, --parallel and the GitHub lifecycle need one',
  fix: 'git init',
};

export function runDoctorChecks(f: DoctorFacts): DoctorCheck[] {
  return [
    nodeCheck(f),
    agentCheck(f),
    authCheck(f),
    gitCheck(f),
    identityCheck(f),
    tmuxCheck(f),
    filesCheck(f),
    planCheck(f),
    gitignoreCheck(f),
    testCheck(f),
    sandboxCheck(f),
    sandboxEnvCheck(f),
    agentUserCheck(f),
    githubCheck(f),
    breakerCheck(f),
  ].filter((c): c is DoctorCheck => c !== null);
}

/** All ready: no check failed. */
export function isReady(checks: readonly DoctorCheck[]): boolean {
  return checks.every((c) => c.level !== 'fail');
}

const MARK: Record<CheckLevel, string> = { ok: '[OK]  ', warn: '[WARN]', fail: '[FAIL]' };

export function formatDoctorReport(checks: readonly DoctorCheck[]): string[] {
  const lines = checks.map((c) => `${MARK[c.level]} ${c.name}: ${c.detail}${c.fix ? ` — fix: ${c.fix}` : ''}`);
  const failed = checks.filter((c) => c.level === 'fail').length;
  const warned = checks.filter((c) => c.level === 'warn').length;
  lines.push(
    '',
    failed === 0
      ? `Ready to run ralph${warned > 0 ? ` (${warned} warning(s))` : ''}.`
      : `Not ready: ${failed} check(s) failed${warned > 0 ? `, ${warned} warning(s)` : ''}.`,
  );
  return lines;
}

function nodeCheck({ node }: DoctorFacts): DoctorCheck {
  return node.supported
    ? { level: 'ok', name: 'Node.js', detail: `${node.version}${node.minimum ? ` (>= ${node.minimum})` : ''}` }
    : {
        level: 'fail',
        name: 'Node.js',
        detail: `${node.version} is older than ${node.minimum}`,
        fix: 'install a current Node.js LTS (https://nodejs.org, or nvm install --lts)',
      };
}

function agentCheck({ agent }: DoctorFacts): DoctorCheck {
  const name = /\bCLI$/.test(agent.label) ? agent.label : `${agent.label} CLI`;
  if ('error' in agent) {
    return { level: 'fail', name, detail: agent.error, fix: `${agent.installHint}, or set ${agent.commandKey} in .ralphrc` };
  }
  if (agent.version === undefined)
    return { level: 'warn', name, detail: `${agent.command} (version not recognised)`, fix: `check that '${agent.command} --version' prints a version` };
  if (agent.tooOld) {
    return { level: 'warn', name, detail: `${agent.command} ${agent.version} is older than ${agent.minimum}`, fix: `${agent.installHint}@latest` };
  }
  return { level: 'ok', name, detail: `${agent.command} ${agent.version}` };
}

// No call is spent to find out: an API key or token in the environment, or the CLI's own
// credentials file, is taken as logged in. On macOS the login lives in the keychain, which
// cannot be read here: unknown, not failed.
function authCheck({ auth, agent }: DoctorFacts): DoctorCheck | null {
  if ('error' in agent) return null;
  if (agent.name !== 'claude') return declaredAuthCheck(auth, `${agent.label} login`);
  if (auth.envVar) return { level: 'ok', name: 'Claude login', detail: `${auth.envVar} is set` };
  if (auth.credentialsFile) return { level: 'ok', name: 'Claude login', detail: `credentials in ${auth.credentialsFile}` };
  if (auth.keychainPlatform) {
    return {
      level: 'warn',
      name: 'Claude login',
      detail: 'not visible without a call (the macOS keychain may hold it)',
      fix: "if the first loop says 'Not logged in', run: claude, then /login",
    };
  }
  return {
    level: 'fail',
    name: 'Claude login',
    detail: 'no ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN or credentials file',
    fix: 'run: claude, then /login (or set ANTHROPIC_API_KEY)',
  };
}

/** Another agent's login, as its adapter declares where it lives; no declaration, no check. */
function declaredAuthCheck(auth: DoctorFacts['auth'], name: string): DoctorCheck | null {
  if (!auth.declared) return null;
  if (auth.envVar) return { level: 'ok', name, detail: `${auth.envVar} is set` };
  if (auth.credentialsFile) return { level: 'ok', name, detail: `credentials in ${auth.credentialsFile}` };
  return { level: auth.declared.missing, name, detail: `no ${auth.declared.envVars.join(', ')} or credentials file`, fix: auth.declared.fix };
}

function gitCheck({ git }: DoctorFacts): DoctorCheck {
  if (git.version === null) return { level: 'fail', name: 'git', detail: 'not found on PATH', fix: 'install git (https://git-scm.com)' };
  if (!git.repo) return { level: 'warn', name: 'git', detail: `${git.version}; this folder is ${NOT_A_GIT_REPOSITORY.detail}`, fix: NOT_A_GIT_REPOSITORY.fix };
  return { level: 'ok', name: 'git', detail: `${git.version}, repository found` };
}

function identityCheck({ git }: DoctorFacts): DoctorCheck | null {
  if (git.version === null) return null;
  if (git.userName && git.userEmail) return { level: 'ok', name: 'git identity', detail: `${git.userName} <${git.userEmail}>` };
  const missing = [git.userName ? null : 'user.name', git.userEmail ? null : 'user.email'].filter((k) => k !== null).join(' and ');
  return {
    level: 'warn',
    name: 'git identity',
    detail: `${missing} not set: commits by the agent will fail`,
    fix: 'git config --global user.name "Your Name" && git config --global user.email you@example.com',
  };
}

function tmuxCheck({ tmux }: DoctorFacts): DoctorCheck {
  return tmux.version === null
    ? {
        level: 'warn',
        name: 'tmux',
        detail: 'not found: ralph --monitor needs it (ralph alone does not)',
        fix: 'install tmux (apt install tmux, brew install tmux)',
      }
    : { level: 'ok', name: 'tmux', detail: `${tmux.version} (for --monitor)` };
}

function filesCheck({ ralphFiles, config }: DoctorFacts): DoctorCheck {
  if (config.error)
    return { level: 'fail', name: 'configuration', detail: config.error, fix: 'correct .ralphrc (ralph --config shows every value and its source)' };
  if (ralphFiles.legacyLayout)
    return {
      level: 'fail',
      name: 'project files',
      detail: 'the old flat layout (PROMPT.md, @fix_plan.md at the top): ralph keeps them in .ralph/',
      fix: 'ralph-migrate (moves them into .ralph/)',
    };
  if (!ralphFiles.ralphDir)
    return {
      level: 'fail',
      name: 'project files',
      detail: 'no .ralph/ directory here',
      fix: ralphFiles.enclosing
        ? `cd ${quoteForShell(ralphFiles.enclosing)} (this folder is inside that Ralph project)`
        : 'ralph-enable (in an existing project) or ralph-setup NAME (a new one)',
    };
  if (ralphFiles.missing.length > 0) {
    return {
      level: 'fail',
      name: 'project files',
      detail: `missing ${ralphFiles.missing.join(', ')}`,
      fix: 'ralph-enable (restores only the missing files; yours are kept)',
    };
  }
  if (ralphFiles.unwritable)
    return {
      level: 'fail',
      name: 'project files',
      detail: `.ralph/ cannot be written (${ralphFiles.unwritable}): ralph would refuse to start`,
      fix: 'make .ralph/ writable for this user (or run where the project is not on a read-only mount)',
    };
  if (ralphFiles.emptyPrompt)
    return {
      level: 'fail',
      name: 'project files',
      detail: 'PROMPT.md is empty: the agent would be given no task',
      fix: 'write the task into .ralph/PROMPT.md (ralph-enable --force writes a template, backing yours up)',
    };
  return { level: 'ok', name: 'project files', detail: '.ralph/ has PROMPT.md, fix_plan.md and AGENT.md' };
}

/**
 * The open items of the plan ralph-setup and ralph-enable wrote before version 0.13: generic
 * work nobody asked for, each a paid loop. A plan that still holds them is still the template.
 */
export const FORMER_TEMPLATE_TASKS: readonly string[] = [
  'Review the codebase and the specifications in .ralph/specs/',
  'Identify the most important missing or broken behaviour and fix it',
  'Make sure the project builds and its tests pass',
  'Add tests for the main behaviour that has none',
  'Handle errors and edge cases in the core paths',
  'Document how to build, test and run the project in .ralph/AGENT.md',
  'Refactor code that is hard to follow',
  'Improve the README',
];

const WRITE_TASKS = 'write one "- [ ] task" line per task under ## Tasks in .ralph/fix_plan.md';

/** A plan with no task at all: said by --doctor, and by a run as it starts. */
export const NO_TASK_YET = {
  detail: 'no task yet: the agent works from PROMPT.md alone, and no plan says when it is done',
  fix: WRITE_TASKS,
};

function planCheck({ plan }: DoctorFacts): DoctorCheck | null {
  if (!plan) return null;
  const name = 'fix_plan.md';
  const template = plan.openItems.filter((item) => FORMER_TEMPLATE_TASKS.includes(item));
  if (template.length > 0) {
    return {
      level: 'warn',
      name,
      detail: `${template.length} open item(s) are still the template's generic tasks ("${template[0]}"…): each would be a paid loop changing code nobody asked to change`,
      fix: `delete them and ${WRITE_TASKS}`,
    };
  }
  if (plan.open + plan.done === 0) return { level: 'warn', name, detail: NO_TASK_YET.detail, fix: NO_TASK_YET.fix };
  if (plan.open === 0)
    return { level: 'warn', name, detail: `all ${plan.done} task(s) are done: a run would stop at once`, fix: `add the next tasks: ${WRITE_TASKS}` };
  return { level: 'ok', name, detail: `${plan.open} open task(s), ${plan.done} done` };
}

/** A shell command that adds what the files need to .gitignore (ralph-enable refuses an enabled project). */
function ignoreCommand(files: string[]): string {
  const patterns = files.map((file) => {
    const [dir, name, deeper] = file.split('/');
    if (deeper !== undefined) return `${dir}/${name}/`;
    return name?.startsWith('.') ? `${dir}/.*` : file;
  });
  return `printf '%s\\n' ${[...new Set(patterns)].map((p) => `'${p.replace(/'/g, `'\\''`)}'`).join(' ')} >> .gitignore`;
}

function gitignoreCheck({ unignored }: DoctorFacts): DoctorCheck | null {
  if (unignored === null) return null;
  if (unignored.length === 0) return { level: 'ok', name: '.gitignore', detail: "ralph's state files are ignored" };
  return { level: 'warn', name: '.gitignore', detail: `git would show ralph's state (${unignored.join(', ')})`, fix: ignoreCommand(unignored) };
}

function testCheck({ test, config }: DoctorFacts): DoctorCheck | null {
  if (config.error) return null;
  const gates = test.qualityGates.length > 0 ? `; quality gates: ${test.qualityGates.join(' | ')}` : '';
  if (test.command && test.missingProgram) {
    return {
      level: 'fail',
      name: 'test command',
      detail: `${test.command}${test.from ? ` (from ${test.from})` : ''}: ${test.missingProgram} is not installed (not found on PATH)`,
      fix: `install ${test.missingProgram}, or set TEST_COMMAND in .ralphrc to a command that runs here`,
    };
  }
  if (test.command) return { level: 'ok', name: 'test command', detail: `${test.command}${test.from ? ` (from ${test.from})` : ''}${gates}` };
  if (gates) return { level: 'ok', name: 'test command', detail: `none${gates}` };
  return {
    level: 'warn',
    name: 'test command',
    detail: 'none found: completion will not be verified',
    fix: 'set TEST_COMMAND in .ralphrc (e.g. TEST_COMMAND="npm test")',
  };
}

function sandboxCheck({ sandbox }: DoctorFacts): DoctorCheck | null {
  if (sandbox.provider === 'none') return null;
  const name = `sandbox (${sandbox.provider})`;
  if (sandbox.error)
    return { level: 'fail', name, detail: `${sandbox.error}: ralph would refuse to run`, fix: sandbox.fix ?? 'run without --sandbox / SANDBOX_PROVIDER' };
  return {
    level: 'ok',
    name,
    detail: sandbox.provider === 'docker' ? 'the daemon answers and the image is there' : "bubblewrap runs here, and the agent's --version runs inside it",
  };
}

/** The allow-list of variables the agent gets in the sandbox, as they are set now. */
function sandboxEnvCheck({ sandbox }: DoctorFacts): DoctorCheck | null {
  if (sandbox.provider === 'none' || !sandbox.env) return null;
  const { passed, withheld } = sandbox.env;
  const shown = withheld.slice(0, 8).join(', ');
  const held = withheld.length === 0 ? 'nothing else is set' : `${withheld.length} other(s) withheld: ${shown}${withheld.length > 8 ? ', …' : ''}`;
  return {
    level: 'ok',
    name: 'sandbox environment',
    detail: `the agent gets ${passed.length > 0 ? passed.join(', ') : 'none of yours'}; ${held} (add names with SANDBOX_ENV)`,
  };
}

/** The agent never runs as root unless the user allowed it (ALLOW_ROOT_AGENT, no sandbox). */
function agentUserCheck({ agentUser }: DoctorFacts): DoctorCheck | null {
  if (!agentUser) return null;
  const name = 'agent user';
  const allowed = agentUser.allowRootAgent ? `; ALLOW_ROOT_AGENT=true (${agentUser.allowRootAgent})` : '';
  if ('error' in agentUser) return { level: 'fail', name, detail: `${agentUser.error}: ralph would refuse to run`, fix: agentUser.fix };
  if (agentUser.as === 'root')
    return {
      level: 'warn',
      name,
      detail: `the agent and the gate's commands run as root${allowed}`,
      fix: 'on a machine that is not a throw-away one: run ralph as an ordinary user, or chown the project to one',
    };
  const who = agentUser.as === 'owner' ? `uid ${agentUser.uid}, the project's owner (ralph runs as root)` : `you (uid ${agentUser.uid})`;
  return { level: 'ok', name, detail: `the agent and the gate's commands run as ${who}${allowed}` };
}

function githubCheck({ github }: DoctorFacts): DoctorCheck | null {
  if (!github) return null;
  const name = 'GitHub CLI';
  if (github.error) return { level: 'fail', name, detail: github.error, fix: 'use N, #N, owner/repo#N or https://github.com/owner/repo/issues/N' };
  if (!github.gh) {
    return {
      level: 'fail',
      name,
      detail: `gh is not installed: ${github.from} ${github.issue} could not read, comment on or close the issue`,
      fix: github.installHint,
    };
  }
  return { level: 'ok', name, detail: `gh found, for issue ${github.issue} (${github.from})` };
}

/** An OPEN breaker: the run would stop at its first guard, before any loop. */
function breakerCheck({ breaker }: DoctorFacts): DoctorCheck | null {
  if (!breaker) return null;
  const wait = breaker.cooldownEndsAt ? ` (or wait until ${breaker.cooldownEndsAt}, when its cooldown ends)` : '';
  return {
    level: 'fail',
    name: 'circuit breaker',
    detail: `OPEN (${breaker.reason}): ralph would halt before its first loop`,
    fix: `ralph --circuit-status shows why; fix the cause, then ralph --reset-circuit${wait}`,
  };
}
