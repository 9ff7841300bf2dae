/**
 * The API-server bench's other side: the server of a commit from this repository's history
 * (BENCH_BASE), checked out by ./baseCheckout.ts and started by its own launcher so that its server
 * is what it was. Only the server: the bench asks no page, so it serves this checkout's build, and
 * the load (apps, friends, converting stand-in, the race added through the admin command) stays this
 * checkout's, which assumes the two sides' schemas and API agree (a base a few commits back).
 */
import path from 'node:path';
import { root } from '../../kit/serverProcess.js';
import { checkOutBase, type ServerLauncher } from './baseCheckout.js';

export type { ServerLauncher };

/** The base commit's server, ready to start with the rig's settings; `remove` deletes the checkout. */
export async function baseServer(commit: string, log: (m: string) => void): Promise<{ launch: ServerLauncher; remove: () => Promise<void> }> {
  const base = await checkOutBase(commit, 'apiserver', log);
  return { launch: (env) => base.launch({ DIST_DIR: path.join(root, 'dist'), ...env }), remove: base.remove };
}
