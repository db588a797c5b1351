// `ralph-monitor --web` and `ralph --web`: the web view started, its address printed on one line,
// served until the signal, then closed (no connection or timer is left behind).

import type { ViewConfig } from '../../config/view-config.js';
import { startWebView } from '../../web/web-server.js';
import type { WebAddressArgs } from './monitor-args.js';

export interface ServeWebViewOptions {
  projectDir: string;
  view: ViewConfig;
  address: WebAddressArgs;
  signal: AbortSignal;
  write: (text: string) => void;
}

export async function serveWebView(options: ServeWebViewOptions): Promise<void> {
  const web = await openWebView(options);
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await web.close();
  options.write('Web view stopped.\n');
}

/** Starts the view and prints its address; the caller closes it. */
export async function openWebView(options: Omit<ServeWebViewOptions, 'signal'>): Promise<{ url: string; close(): Promise<void> }> {
  const web = await startWebView({ projectDir: options.projectDir, view: options.view, host: options.address.host, port: options.address.port });
  const wide = !['127.0.0.1', 'localhost', '::1'].includes(options.address.host);
  options.write(`Web view: ${web.url}${wide ? `  (listening on ${options.address.host}: other machines that reach it can open it with the token)` : ''}\n`);
  return web;
}
