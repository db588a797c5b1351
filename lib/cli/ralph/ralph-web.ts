// `ralph --web`: the loop with its web view beside it, in the same process. The view starts
// before the loop (its address is the first line printed) and is closed when the loop returns,
// whatever its exit, so nothing is left listening.

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { loadViewConfig } from '../../config/view-config.js';
import { openWebView } from '../monitor/monitor-web.js';

export async function withWebView(address: { host: string; port: number }, projectDir: string, run: () => Promise<number>): Promise<number> {
  const view = loadViewConfig({ projectDir, homeDir: homedir(), env: process.env });
  // Not a project: the loop says so, with its own message and exit code.
  if (!statSync(view.paths.ralphDir, { throwIfNoEntry: false })?.isDirectory()) return run();
  const web = await openWebView({ projectDir, view, address, write: (text) => process.stdout.write(text) });
  try {
    return await run();
  } finally {
    await web.close();
  }
}
