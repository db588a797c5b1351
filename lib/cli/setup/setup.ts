// ralph-setup [name]: create a new Ralph project with its first commit.

import { nodeProcessRunner } from '../../platform/process.js';
import { hasCommandOnPath } from '../../platform/find-executable.js';
import { setupProject } from '../../project/setup-project.js';
import { nestedProjectWarnings } from '../../project/nested-project.js';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { goneProjectStateLine } from '../../state/gone-project-state.js';
import { dirname, resolve } from 'node:path';
import { unwritableReason } from '../../state/writable-dir.js';
import { assertTemplatesInstalled } from '../../project/templates.js';
import { RalphError } from '../../errors.js';
import { parseSetupArgs, renderSetupHelp } from '../bootstrap-args.js';
import { runMain } from '../error-funnel.js';
import { formatVersionLine, wantsVersion } from '../package-info.js';
import { formatFileOutcomes } from '../enable/messages-enable.js';
import { FALLBACK_IDENTITY_WARNING, setupNextSteps } from './messages-setup.js';

export async function main(argv: string[]): Promise<number> {
  if (wantsVersion(argv)) {
    process.stdout.write(`${formatVersionLine('ralph-setup')}\n`);
    return 0;
  }
  const parsed = parseSetupArgs(argv);
  if (parsed === 'help') {
    process.stdout.write(renderSetupHelp());
    return 0;
  }
  const { name } = parsed;
  assertTemplatesInstalled();

  // The folder the project goes in (or the project's own, when it is there): named when it
  // cannot be written, before anything is.
  const target = resolve(name);
  const unwritable = unwritableReason(existsSync(target) ? target : dirname(target));
  if (unwritable) {
    throw new RalphError(
      'not_writable',
      `Cannot create the project ${name} in ${existsSync(target) ? target : dirname(target)}: ${unwritable} (nothing was written)`,
      { hint: 'run ralph-setup in a folder you can write' },
    );
  }
  const say = (text: string) => void process.stdout.write(`${text}\n`);
  for (const warning of nestedProjectWarnings(process.cwd(), resolve(name))) process.stderr.write(`Warning: ${warning}\n`);
  say(`🚀 Setting up Ralph project: ${name}`);
  const result = await setupProject({
    parentDir: process.cwd(),
    name,
    force: parsed.force,
    runner: nodeProcessRunner,
    env: process.env,
    homeDir: homedir(),
    hasCommand: hasCommandOnPath(process.env),
  });
  if (result.goneProjectState) {
    say(goneProjectStateLine(result.goneProjectState.to));
  }
  for (const line of formatFileOutcomes(result.files, result.backup)) say(line);

  switch (result.git.kind) {
    case 'committed':
      if (result.git.initialized) say('[SUCCESS] Initialized git repository');
      say('[SUCCESS] Created the initial commit');
      if (result.git.usedFallbackIdentity) process.stderr.write(`${FALLBACK_IDENTITY_WARNING}\n`);
      break;
    case 'nothing-to-commit':
      say('[SKIP] Nothing new to commit');
      break;
    case 'git-missing':
      process.stderr.write('Warning: git is not installed; the project was created without a repository\n');
      break;
    case 'failed':
      throw new RalphError('setup_git_failed', `${result.git.step} failed: ${result.git.message}`, {
        hint: `the files are in place; fix git and run: cd ${name} && git add -A && git commit -m "Initial Ralph project setup"`,
      });
  }
  const changed = result.git.kind === 'committed' || Object.values(result.files).some((outcome) => outcome !== 'skipped' && outcome !== 'unchanged');
  if (!changed) {
    say(`Project ${result.projectName} is already set up: nothing was changed (--force replaces its files, keeping a backup).`);
    return 0;
  }
  say(`✅ Project ${result.projectName} created!`);
  for (const line of setupNextSteps(name)) say(line);
  return 0;
}

await runMain(main);
