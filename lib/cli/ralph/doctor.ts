// `ralph --doctor`: gathers what a run needs, without starting one or spending an agent call —
// Node.js, the agent CLI and its version (`--version`), a visible login, git and an identity,
// tmux, the project's .ralph/ files, .gitignore coverage of ralph's state (asked of git itself)
// the test command the gate will run, the sandbox asked for and a circuit breaker left OPEN — then
// prints one line per check (project/doctor-checks.ts).
// Exit 0 when nothing failed, 1 otherwise.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { loadConfig, type LoadConfigResult } from '../../config/load-config.js';
import { formatDoctorReport, isReady, runDoctorChecks, type DoctorFacts } from '../../project/doctor-checks.js';
import { claudeAdapter } from '../../agents/claude-code.js';
import type { AgentAdapter } from '../../agents/agent-adapter.js';
import { agentCommandOf, chooseAgent } from '../../agents/choose-agent.js';
import { findAgentCommand, isLegacyFlatLayout, isVersionTooOld, missingRequiredPaths } from '../../loop/startup.js';
import { nodeProcessRunner, type ProcessRunner } from '../../platform/process.js';
import { projectPaths, stateFilePaths, type RalphPaths } from '../../state/paths.js';
import { parallelStatePaths } from '../../parallel/run-state.js';
import { findExecutable } from '../../platform/find-executable.js';
import { planCommand } from '../../verify/command-line.js';
import { planVerification } from '../../verify/verification-setup.js';
import { stripTerminalControls } from '../../text/terminal-text.js';
import { RalphError } from '../../errors.js';
import { parseFixPlan } from '../../plan/fix-plan.js';
import { checkBwrap } from '../../sandbox/bwrap-sandbox.js';
import { probeAgentInBwrap } from '../../sandbox/bwrap-agent-probe.js';
import { checkDocker } from '../../sandbox/docker-checks.js';
import { chooseAgentUser, chooseHostAgentUser, ralphIds, readOwner } from '../../sandbox/agent-user.js';
import { agentQuestionRunner, sandboxSettingsOf } from '../../sandbox/open-sandbox.js';
import { agentProbeRunner } from '../../sandbox/agent-probe-runner.js';
import { describeSandboxEnv, HOST_PATH_ENV, sandboxEnvPatterns } from '../../sandbox/sandbox-env.js';
import { isNodeVersionSupported, minimumNodeVersion } from '../require-node.js';
import { PACKAGE_ROOT } from '../package-info.js';
import { resolveIssueRef } from '../../lifecycle/github-lifecycle.js';
import { formatIssueRef } from '../../lifecycle/issue-ref.js';
import { GH_TOOL } from '../../tasks/gh-cli.js';
import { unwritableReason } from '../../state/writable-dir.js';
import { runGitCommand } from '../../platform/git-operations.js';
import type { RunResult } from '../../platform/process-types.js';
import { loadBreaker } from '../../breaker/breaker-store.js';
import { breakerThresholds } from '../../breaker/breaker-step.js';
import { applyStartupRecovery, cooldownEndsAt, shouldHalt } from '../../breaker/circuit-breaker.js';
import { ledgerPath } from '../../state/ledger-path.js';
import { formatClockTime } from '../../limits/rate-window.js';
import { silentLogger } from '../../platform/logger.js';
import { systemClock } from '../../platform/clock.js';
import { findEnclosingProjects } from '../../project/nested-project.js';

export interface DoctorOptions {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  flags: Record<string, string | number | boolean>;
  write: (text: string) => void;
}

const AUTH_ENV_VARS = ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'];
const PROBE_TIMEOUT_MS = 15_000;

export async function runDoctor(options: DoctorOptions): Promise<number> {
  const checks = runDoctorChecks(await gatherFacts(options, nodeProcessRunner));
  options.write(`${formatDoctorReport(checks).join('\n')}\n`);
  return isReady(checks) ? 0 : 1;
}

async function gatherFacts(options: DoctorOptions, runner: ProcessRunner): Promise<DoctorFacts> {
  const { projectDir, env } = options;
  const home = env.HOME || homedir();
  let loaded: LoadConfigResult | null = null;
  let configError: string | null = null;
  try {
    loaded = loadConfig({ projectDir, homeDir: home, env, flags: options.flags });
  } catch (error) {
    configError = (error as Error).message;
  }
  const paths = loaded ? projectPaths(projectDir, loaded.config) : null;
  const probeOptions = { cwd: projectDir, env, timeoutMs: PROBE_TIMEOUT_MS };
  const answered = (r: RunResult) => (r.spawnError || r.code === null ? null : r);
  const run = async (cmd: string, args: string[]) => answered(await runner.run(cmd, args, probeOptions));
  const git = async (args: string[]) => answered(await runGitCommand(runner, args, probeOptions));

  const gitVersion = await git(['--version']);
  const repo = gitVersion ? (await git(['rev-parse', '--is-inside-work-tree']))?.stdout.trim() === 'true' : false;
  // What a commit would use (config, GIT_AUTHOR_* or what git derives); fails when it has none.
  const ident = gitVersion ? /^(.*?)\s*<([^>]*)>/.exec((await git(['var', 'GIT_AUTHOR_IDENT']))?.stdout ?? '') : null;
  const tmux = await run('tmux', ['-V']);
  const test = loaded
    ? planVerification(loaded.config, projectDir, loaded.sources.TEST_COMMAND.detail ?? loaded.sources.TEST_COMMAND.kind, paths?.agent)
    : null;

  const agent = await agentFacts(loaded, projectDir, env, runner);
  return {
    node: nodeFacts(),
    agent,
    auth: authFacts(loaded ? chooseAgent(loaded.config) : claudeAdapter, env, home),
    git: {
      version: gitVersion ? gitVersion.stdout.trim().replace(/^git version\s*/, '') : null,
      repo,
      userName: ident?.[1] || null,
      userEmail: ident?.[2] || null,
    },
    tmux: { version: tmux?.code === 0 ? tmux.stdout.trim() : null },
    config: { error: configError },
    ralphFiles: paths
      ? {
          ralphDir: existsSync(paths.ralphDir),
          missing: missingRequiredPaths(paths),
          emptyPrompt: isBlankFile(paths.prompt),
          legacyLayout: isLegacyFlatLayout(projectDir),
          unwritable: unwritableReason(paths.ralphDir),
          ...enclosingProject(projectDir),
        }
      : { ralphDir: existsSync(join(projectDir, '.ralph')), missing: [], ...enclosingProject(projectDir) },
    ...(paths && existsSync(paths.fixPlan) && loaded ? { plan: planFacts(paths.fixPlan, loaded.config.OPTIONAL_SECTIONS) } : {}),
    unignored: paths && repo ? await unignoredStateFiles(paths, git) : null,
    test: {
      command: test?.test?.command ?? null,
      from: test?.test?.detail ?? null,
      qualityGates: test?.qualityGates ?? [],
      missingProgram: missingProgramOf(test?.test?.command, env),
    },
    ...(loaded ? githubFacts(loaded, env) : {}),
    ...(loaded ? { agentUser: agentUserFacts(loaded, projectDir) } : {}),
    ...(paths && loaded && existsSync(paths.ralphDir) ? breakerFacts(paths, loaded, projectDir, env, home) : {}),
    sandbox: loaded ? await sandboxFacts(loaded, 'command' in agent ? agent.command : undefined, { projectDir, home, env, runner }) : { provider: 'none' },
  };
}

function nodeFacts(): DoctorFacts['node'] {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  const minimum = minimumNodeVersion(pkg.engines?.node);
  const version = process.versions.node;
  return { version, minimum, supported: minimum === undefined || isNodeVersionSupported(version, minimum) };
}

async function agentFacts(loaded: LoadConfigResult | null, projectDir: string, env: NodeJS.ProcessEnv, runner: ProcessRunner): Promise<DoctorFacts['agent']> {
  const agent = loaded ? chooseAgent(loaded.config) : claudeAdapter;
  const configured = loaded ? agentCommandOf(loaded.config, agent) : agent.defaultCommand;
  const identity = { name: agent.name, label: agent.label, installHint: agent.installHint, commandKey: agent.commandKey };
  const minimum = agent.name === 'claude' ? (loaded?.config.CLAUDE_MIN_VERSION ?? '0.0.0') : '0.0.0';
  try {
    const found = await findAgentCommand({
      agent,
      configured,
      configuredFromDefault: !loaded || loaded.sources[agent.commandKey].kind === 'default',
      env,
      projectDir,
      ralphRoot: PACKAGE_ROOT,
      processRunner: questionRunner(loaded, projectDir, env, runner),
    });
    return { ...identity, command: found.command, version: found.version, minimum, tooOld: isVersionTooOld(found.version, minimum) };
  } catch {
    return { ...identity, error: `'${configured}' is not installed or does not answer --version` };
  }
}

/** As a run asks its agent CLI: under a sandbox, one inside the project only inside it (never on the host). */
function questionRunner(loaded: LoadConfigResult | null, projectDir: string, env: NodeJS.ProcessEnv, runner: ProcessRunner): ProcessRunner {
  if (!loaded) return runner;
  try {
    return agentQuestionRunner(sandboxSettingsOf(loaded.config, loaded.sources.SANDBOX_PROVIDER), {
      projectDir,
      homeDir: env.HOME || homedir(),
      env,
      processRunner: runner,
    });
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    // The sandbox line says what is wrong with its settings; the agent is not asked on the host meanwhile.
    return agentProbeRunner({ runner, projectDir, env });
  }
}

function authFacts(agent: AgentAdapter, env: NodeJS.ProcessEnv, home: string): DoctorFacts['auth'] {
  const isSet = (key: string) => (env[key] ?? '').trim() !== '';
  const declared = agent.credentials;
  if (!declared) {
    return { envVar: AUTH_ENV_VARS.find(isSet) ?? null, credentialsFile: credentialsFile(env, home), keychainPlatform: process.platform === 'darwin' };
  }
  return {
    envVar: declared.envVars.find(isSet) ?? null,
    credentialsFile: declared.files(env, home).find((f) => existsSync(f)) ?? null,
    keychainPlatform: false,
    declared: { envVars: declared.envVars, missing: declared.missing, fix: declared.fix },
  };
}

/**
 * The sandbox asked for, checked as a run's startup would (daemon and image, or bwrap and its
 * namespaces); under bwrap the agent's --version is run inside it.
 */
async function sandboxFacts(
  loaded: LoadConfigResult,
  agentCommand: string | undefined,
  { projectDir, home, env, runner }: { projectDir: string; home: string; env: NodeJS.ProcessEnv; runner: ProcessRunner },
): Promise<DoctorFacts['sandbox']> {
  const provider = loaded.config.SANDBOX_PROVIDER.trim() || 'none';
  try {
    const settings = sandboxSettingsOf(loaded.config, loaded.sources.SANDBOX_PROVIDER);
    if (settings.provider === 'bwrap') {
      await checkBwrap({ env, projectDir, network: settings.network, processRunner: runner });
      if (agentCommand !== undefined) {
        await probeAgentInBwrap({
          agentCommand,
          projectDir,
          homeDir: home,
          env,
          binds: settings.binds,
          network: settings.network,
          passEnv: settings.passEnv,
          processRunner: runner,
        });
      }
    }
    if (settings.provider === 'docker') await checkDocker({ image: settings.image, env, projectDir, processRunner: runner, packageRoot: PACKAGE_ROOT });
    if (settings.provider === 'none') return { provider: 'none' };
    const described = describeSandboxEnv(env, sandboxEnvPatterns(chooseAgent(loaded.config).sandboxEnv, settings.passEnv));
    // A container has its own PATH, home and temp: the host's paths are not passed to it.
    const passed = settings.provider === 'docker' ? described.passed.filter((name) => !HOST_PATH_ENV.includes(name)) : described.passed;
    return { provider: settings.provider, env: { passed, withheld: described.withheld } };
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return { provider: stripTerminalControls(provider).slice(0, 40), error: error.message, fix: error.hint };
  }
}

/** Whom a run would run the agent as (agent-user.ts), and where ALLOW_ROOT_AGENT comes from. */
function agentUserFacts(loaded: LoadConfigResult, projectDir: string): NonNullable<DoctorFacts['agentUser']> {
  const source = loaded.sources.ALLOW_ROOT_AGENT;
  const allowRootAgent = loaded.config.ALLOW_ROOT_AGENT ? (source.kind === 'flag' ? '--allow-root-agent' : (source.detail ?? source.kind)) : undefined;
  const shown = allowRootAgent === undefined ? {} : { allowRootAgent };
  const ralph = ralphIds();
  try {
    const sandboxed = (loaded.config.SANDBOX_PROVIDER.trim() || 'none') !== 'none';
    const owner = readOwner(projectDir);
    const user = sandboxed ? chooseAgentUser(ralph, owner, projectDir) : chooseHostAgentUser(ralph, owner, projectDir, loaded.config.ALLOW_ROOT_AGENT);
    const as = user.switchTo ? 'owner' : user.uid === 0 && ralph.uid === 0 ? 'root' : 'self';
    return { as, uid: user.uid, ...shown };
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return { error: error.message, fix: error.hint ?? 'run ralph as an ordinary user', ...shown };
  }
}

/** The GitHub issue a run would track, as the run reads it, and whether gh is on PATH. */
function githubFacts(loaded: LoadConfigResult, env: NodeJS.ProcessEnv): Pick<DoctorFacts, 'github'> {
  const source = loaded.sources.GITHUB_ISSUE;
  const from = source.kind === 'flag' ? '--github-issue' : `GITHUB_ISSUE (${source.detail ?? source.kind})`;
  const base = { from, gh: findExecutable(GH_TOOL.cmd, env) !== undefined, installHint: GH_TOOL.installHint };
  try {
    const ref = resolveIssueRef(loaded.config, source);
    return ref ? { github: { ...base, issue: formatIssueRef(ref) } } : {};
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return { github: { ...base, issue: loaded.config.GITHUB_ISSUE, error: error.message } };
  }
}

/** The Ralph project this folder is inside, when it has no .ralph/ of its own. */
function enclosingProject(projectDir: string): { enclosing?: string } {
  if (existsSync(join(projectDir, '.ralph'))) return {};
  const above = findEnclosingProjects(projectDir).ralphRoot;
  return above === undefined ? {} : { enclosing: above };
}

/** The breaker a run would start with, read as the run reads it (the ledger wins), without writing anything. */
function breakerFacts(paths: RalphPaths, loaded: LoadConfigResult, projectDir: string, env: NodeJS.ProcessEnv, home: string): Pick<DoctorFacts, 'breaker'> {
  const options = { logger: silentLogger, clock: systemClock, quarantine: false };
  const state = loadBreaker({ ...paths, ledger: ledgerPath(projectDir, env, home) }, options);
  const thresholds = breakerThresholds(loaded.config);
  if (!shouldHalt(applyStartupRecovery(state, thresholds, systemClock.now()).state)) return {};
  const ends = cooldownEndsAt(state, thresholds);
  // The reason is read from a file the agent can write.
  const reason = stripTerminalControls(state.reason).slice(0, 200);
  return { breaker: { reason, cooldownEndsAt: ends === null ? null : formatClockTime(ends) } };
}

/** The CLI keeps a login made with /login here (Linux, Windows); macOS uses the keychain. */
function credentialsFile(env: NodeJS.ProcessEnv, home: string): string | null {
  const dir = env.CLAUDE_CONFIG_DIR?.trim() || join(home, '.claude');
  const file = join(dir, '.credentials.json');
  return existsSync(file) ? file : null;
}

/** A git command run by --doctor's probe: null when git could not run. */
type GitProbe = (args: string[]) => Promise<{ code: number | null; stdout: string } | null>;

/** Ralph's state files (and a session record) that git does not ignore, project-relative. */
async function unignoredStateFiles(paths: RalphPaths, git: GitProbe): Promise<string[]> {
  const files = [...stateFilePaths(paths), join(paths.sessionsDir, 'run.json'), ...parallelStatePaths(paths), join(paths.ralphDir, 'fleet', '1')].map((p) =>
    relative(paths.projectDir, p),
  );
  const answer = await git(['check-ignore', '--', ...files]);
  // Exit 1: none ignored; 128: git could not tell (treated as not checked).
  if (!answer || answer.code === 128) return [];
  const ignored = new Set(
    answer.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== ''),
  );
  return files.filter((f) => !ignored.has(f));
}

function planFacts(path: string, optionalSections: string[]): DoctorFacts['plan'] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const view = parseFixPlan(text, optionalSections);
  return { open: view.blocking.open, done: view.blocking.done, openItems: view.openItems };
}

function isBlankFile(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').trim() === '';
  } catch {
    return false;
  }
}

/** The program a test command runs directly, when it is not on PATH (a shell command: not judged). */
function missingProgramOf(command: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (!command) return null;
  const plan = planCommand(command);
  const program = plan.argv[0];
  if (plan.shell || !program || program.includes('/')) return null;
  return findExecutable(program, env) ? null : program;
}
