/** Security headers for every response: CSP, nosniff, referrer policy and the rest of helmet's set. */
import { createHash } from 'node:crypto';
import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';
import { REGISTER_WORKER_SCRIPT } from '../../src/shared/registerWorker.js';
import { TODAY_SCRIPT } from '../../src/shared/today.js';

const hashOf = (script: string) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`;

export const securityHeaders = fp(async (app) => {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // Our files, and the two inline scripts the prerendered pages carry (today's date, the worker).
        scriptSrc: ["'self'", hashOf(TODAY_SCRIPT), hashOf(REGISTER_WORKER_SCRIPT)],
        styleSrc: ["'self'"],
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
});
