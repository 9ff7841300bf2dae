/**
 * Probes for a balancer or orchestrator: /healthz (the process answers) and /readyz (it can take
 * traffic; 503 with a JSON reason otherwise). Outside /api, so not rate-limited; logged only at warn.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Readiness } from '../ops/readiness.js';

export const health: FastifyPluginAsync<{ readiness: () => Promise<Readiness> }> = async (app, { readiness }) => {
  const quiet = { logLevel: 'warn' as const };
  app.get('/healthz', quiet, async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', quiet, async (_req, reply) => {
    const answer = await readiness();
    reply.code(answer.ready ? 200 : 503).header('cache-control', 'no-store');
    return answer.ready ? { status: 'ready', checks: answer.checks } : { status: 'not_ready', reason: answer.reason, checks: answer.checks };
  });
};
