/** Builds the Fastify app: the API and the built site. Tests build it too; index.ts only listens. */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { securityHeaders } from './plugins/security.js';
import { site } from './routes/site.js';

export async function buildApp(config: Config): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel },
    trustProxy: true,
  });
  await app.register(securityHeaders);
  await app.register(site, { distDir: config.distDir });
  return app;
}
