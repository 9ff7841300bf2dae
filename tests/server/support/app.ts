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

/** `parts`: what the app is given instead of making its own (a clock, for one). */
export async function startTestApp(kind: BackendKind, env: NodeJS.ProcessEnv = {}, parts?: Partial<AppParts>): Promise<TestApp> {
  const backend = await createBackend(kind, env);
  const app = await buildApp(backend.config, parts);
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
export const restartOn = (backend: TestBackend, env: NodeJS.ProcessEnv = {}) => buildApp(loadConfig({ ...backend.env, ...env }));
