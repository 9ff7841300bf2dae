/** Builds the real app on a test backend and tears both down. */
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOps, type AppParts } from '../../../server/app.js';
import { loadConfig } from '../../../server/config/index.js';
import { createBackend, type BackendKind, type TestBackend } from './backends.js';

export interface TestApp {
  app: FastifyInstance & AppParts & AppOps;
  backend: TestBackend;
  close(): Promise<void>;
}

/**
 * The app's log in the test's own output: vitest keeps it with the test that was running, and npm test
 * (vitest --silent=passed-only) shows it only when that test fails. A server's errors that a test
 * provokes on purpose (a store that fails, a key that cannot be read) are then no noise among passing tests.
 */
export const testLog: AppParts['logStream'] = { write: (line) => console.log(line.trimEnd()) };

/** What the app is given instead of making its own (a clock, for one), or made from the test's backend (a repository). */
export type TestAppParts = Partial<AppParts> | ((backend: TestBackend) => Promise<Partial<AppParts>>);

/** `parts`: what the app is given instead of making its own. */
export async function startTestApp(kind: BackendKind, env: NodeJS.ProcessEnv = {}, parts?: TestAppParts): Promise<TestApp> {
  const backend = await createBackend(kind, env);
  const given = typeof parts === 'function' ? await parts(backend) : parts;
  const app = await ready(await buildApp(backend.config, { logStream: testLog, ...given }));
  return {
    app,
    backend,
    async close() {
      await app.close();
      await backend.cleanup();
    },
  };
}

/** A second app on the same data, as after a restart. */
export const restartOn = async (backend: TestBackend, env: NodeJS.ProcessEnv = {}) =>
  ready(await buildApp(loadConfig({ ...backend.env, ...env }), { logStream: testLog }));

/** An app started as a server starts: ready, its background work (conversion, pushes, sweeps) going. */
async function ready<T extends FastifyInstance>(app: T): Promise<T> {
  await app.ready();
  return app;
}
