/**
 * What a server test holds while it runs, held until the run is stopped (tests/kit/stopped-run.test.ts):
 * a database in the run's PostgreSQL, a data folder in the temp folder, and a server process. It says
 * what it holds in the file HOLD_READY names, then waits; it never ends by itself.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { inject, it } from 'vitest';
import { startServerProcess } from '../../../kit/serverProcess.js';
import { startTestApp } from '../../server/support/app.js';

it('holds a database, a data folder and a server process until it is stopped', async () => {
  const t = await startTestApp('postgres');
  const server = await startServerProcess({ ...t.backend.env, DIST_DIR: path.join(t.backend.config.dataDir, 'no-dist'), LOG_LEVEL: 'warn' });
  writeFileSync(process.env.HOLD_READY!, JSON.stringify({ serverPid: server.child.pid, dataDir: t.backend.config.dataDir, pgAdminUrl: inject('pgAdminUrl') }));
  await new Promise(() => {});
});
