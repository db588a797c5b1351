// ralph-migrate [dir]: move a flat-layout Ralph project into .ralph/.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { RalphError } from '../../errors.js';
import { hasCommandOnPath } from '../../platform/find-executable.js';
import { detectProjectContext } from '../../project/detect-project.js';
import { enableProject } from '../../project/enable-project.js';
import { migrateProject } from '../../project/migrate-layout.js';
import { assertTemplatesInstalled } from '../../project/templates.js';
import { formatFileOutcomes } from '../enable/messages-enable.js';
import { parseMigrateArgs, renderMigrateHelp } from '../bootstrap-args.js';
import { runMain } from '../error-funnel.js';
import { formatVersionLine, wantsVersion } from '../package-info.js';

export async function main(argv: string[]): Promise<number> {
  if (wantsVersion(argv)) {
    process.stdout.write(`${formatVersionLine('ralph-migrate')}\n`);
    return 0;
  }
  const parsed = parseMigrateArgs(argv);
  if (parsed === 'help') {
    process.stdout.write(renderMigrateHelp());
    return 0;
  }
  const dir = resolve(parsed.dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new RalphError('migrate_no_dir', `not a directory: ${dir}`);

  const say = (text: string) => void process.stdout.write(`${text}\n`);
  const result = migrateProject(dir, new Date());
  switch (result.kind) {
    case 'already-migrated':
      say('Project is already using the new .ralph/ structure');
      return 0;
    case 'nothing-to-migrate':
      say('No Ralph project files found. Nothing to migrate.');
      return 0;
    case 'migrated': {
      say(`Migrating Ralph project in ${dir}`);
      say(`Backup created: ${result.backupDir}`);
      for (const move of result.moved) say(`  moved ${move}`);
      // The old layout had no .ralphrc (ralph refuses to start without one) and maybe no
      // AGENT.md: add what is missing, and Ralph's entries (the backup's too) to .gitignore.
      assertTemplatesInstalled();
      const context = detectProjectContext(dir, { hasCommand: hasCommandOnPath(process.env) });
      const enabled = enableProject({ projectDir: dir, context, tasks: [], force: false, generatedBy: 'ralph-migrate', stopIfComplete: false });
      if (enabled.kind === 'enabled') {
        const added = Object.fromEntries(Object.entries(enabled.files).filter(([, outcome]) => outcome !== 'skipped' && outcome !== 'unchanged'));
        for (const line of formatFileOutcomes(added)) say(line);
      }
      say('Migration complete. Ralph files now live in .ralph/.');
      say('Next steps:');
      say('  1. Check .ralph/PROMPT.md and .ralph/fix_plan.md');
      say('  2. Commit the change (.gitignore lists .ralph_backup_*, so the backup stays out of git)');
      say('  3. Run: ralph --monitor');
      return 0;
    }
  }
}

await runMain(main);
