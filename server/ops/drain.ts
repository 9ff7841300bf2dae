/**
 * Owns a graceful stop: once stopping, new note uploads (whole PUTs and appends alike, the routes
 * marked as note uploads) get 503 + Retry-After (the recorder keeps the note and sends it again,
 * to another server behind the balancer) and the uploads in flight may finish up to a limit. (The
 * background work, conversion among it, stops after them: ../background/services.ts.)
 */
import fp from 'fastify-plugin';
import type { FastifyPluginAsync } from 'fastify';
import { isNoteUpload } from '../http/note-upload-mark.js';
import { refusal } from '../http/refusals.js';

const RETRY_AFTER_SECONDS = 5;

export interface Drain {
  stopping(): boolean;
  /** Refuses new uploads, then waits for the ones in flight, at most `limitMs`. Resolves with how many were still running. */
  start(limitMs: number): Promise<number>;
  /** The Fastify plugin that refuses and counts uploads. */
  plugin: FastifyPluginAsync;
}

export function createDrain(): Drain {
  let stopping = false;
  let inFlight = 0;
  let settled: (() => void) | undefined;

  const plugin: FastifyPluginAsync = fp(async (app) => {
    app.addHook('onRequest', async (req, reply) => {
      if (!isNoteUpload(req)) return;
      if (stopping) throw refusal.shutting_down(RETRY_AFTER_SECONDS);
      inFlight += 1;
      // 'close' fires once whether the answer went out or the client went away.
      reply.raw.once('close', () => {
        inFlight -= 1;
        if (inFlight === 0) settled?.();
      });
    });
  });

  return {
    stopping: () => stopping,
    plugin,
    async start(limitMs) {
      stopping = true;
      if (inFlight === 0) return 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, limitMs);
        settled = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      return inFlight;
    },
  };
}
