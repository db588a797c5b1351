// `ralph --accept-item ITEM`: the user's word on a plan item ralph holds open although fix_plan.md
// shows it otherwise (ticked in a loop with no measured new content, removed, moved under an
// optional section). ITEM is its number as `ralph --status` lists them, or its text (or a part
// of it naming one item only). The item leaves the plan's memory kept beside ralph's ledger;
// nothing else changes. Refused while a run holds the project: that run's memory would win.

import { homedir } from 'node:os';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { loadViewConfig } from '../../config/view-config.js';
import { RalphError } from '../../errors.js';
import { findHeldItem, heldOpenItems, parseItemSelector, savePlanMemory, withoutItem } from '../../plan/plan-store.js';
import type { HiddenItem } from '../../plan/plan-memory.js';
import { createDeps } from '../../platform/create-deps.js';
import { readProjectLock } from '../../state/lock.js';
import { isProcessAlive } from '../../state/process-alive.js';
import { stripTerminalControls } from '../../text/terminal-text.js';
import { notAProjectHint } from '../../project/nested-project.js';

export interface AcceptItemsOptions {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** Each `--accept-item` value, in order. */
  items: string[];
  write: (text: string) => void;
}

const LIST_HINT = 'ralph --status lists the items ralph holds open, by number';

export function acceptPlanItems(options: AcceptItemsOptions): number {
  const view = loadViewConfig({ projectDir: options.projectDir, homeDir: homedir(), env: options.env });
  const { paths } = view;
  if (!existsSync(paths.ralphDir)) {
    throw new RalphError('not_a_project', 'This directory is not a Ralph project (no .ralph/ folder)', {
      hint: notAProjectHint(options.projectDir, 'cd into a Ralph project, or run ralph-enable here'),
    });
  }
  const lock = readProjectLock(paths.lock);
  if (lock && isProcessAlive(lock.pid)) {
    throw new RalphError('run_in_progress', `--accept-item: a ralph run holds this project (pid ${lock.pid})`, {
      hint: 'stop it (Ctrl-C), then run ralph --accept-item again',
    });
  }
  const deps = createDeps({ cwd: options.projectDir, env: options.env });
  const { memory, held } = heldOpenItems(paths, view.optionalSections, deps.logger);
  if (held.length === 0)
    throw new RalphError('bad_flag', `--accept-item: ralph holds no plan item open against ${basename(paths.fixPlan)}`, { hint: LIST_HINT });
  // Every ITEM is found in the list as ralph --status numbered it, before any is taken out.
  const chosen: HiddenItem[] = [];
  for (const value of options.items) {
    const match = findHeldItem(held, parseItemSelector(value));
    if (match.kind === 'not-found') throw new RalphError('bad_flag', `--accept-item: no item ralph holds open matches '${clean(value)}'`, { hint: LIST_HINT });
    if (match.kind === 'ambiguous') {
      throw new RalphError(
        'bad_flag',
        `--accept-item: '${clean(value)}' matches ${match.matches.length} items: ${match.matches.map((m) => clean(m.text)).join('; ')}`,
        {
          hint: 'name one by its number (ralph --status)',
        },
      );
    }
    if (!chosen.includes(match.item)) chosen.push(match.item);
  }
  savePlanMemory(paths, chosen.reduce(withoutItem, memory), undefined);
  for (const item of chosen) {
    options.write(`Accepted: ${clean(item.text)} (${item.how}); ralph no longer counts it as open\n`);
  }
  return 0;
}

function clean(text: string): string {
  return stripTerminalControls(text).slice(0, 200);
}
