/** Security headers for every response: CSP, nosniff, referrer policy and the rest of helmet's set. */
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import { REGISTER_WORKER_SCRIPT } from '../../src/shared/registerWorker.js';
import { TODAY_SCRIPT } from '../../src/shared/today.js';

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** `inlineStyles`: the text of each <style> block the pages carry, allowed by its hash. */
export const securityHeaders = fp<{ inlineStyles: string[] }>(async (app, { inlineStyles }) => {
  // helmet itself, built once: @fastify/helmet built it again on every request (parsing the CSP
  // directives each time), 3 % of an upload's time on the main thread in the ingest bench.
  const setHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // Our files, and the two inline scripts the prerendered pages carry (today's date, the worker).
        scriptSrc: ["'self'", hashOf(TODAY_SCRIPT), hashOf(REGISTER_WORKER_SCRIPT)],
        styleSrc: ["'self'", ...new Set(inlineStyles.map(hashOf))],
        imgSrc: ["'self'", 'data:', 'blob:'],
        mediaSrc: ["'self'", 'blob:'],
        connectSrc: ["'self'"],
        workerSrc: ["'self'"],
        manifestSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // The hero video and audio are same-origin; nothing here is embedded cross-origin.
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  });
  app.addHook('onRequest', (req, reply, done) => setHeaders(req.raw, reply.raw, (err) => done(err as Error | undefined)));
});
