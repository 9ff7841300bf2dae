/**
 * Security headers: helmet's whole set (CSP, frame and opener policy, referrer policy...) on what a
 * browser may render as a document, and on the service worker (a worker script's CSP is its own);
 * a subresource (script, stylesheet, image, font, audio) keeps only what means something on it.
 */
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import { REGISTER_WORKER_SCRIPT } from '../../contract/registerWorker.js';
import { TODAY_SCRIPT } from '../../contract/today.js';

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * `inlineStyles`, `inlineScripts`: the text of each <style> and inline <script> block the built pages
 * carry, allowed by its hash (the prerendered pages' own two scripts are allowed whether built or not).
 */
export const securityHeaders = fp<{ inlineStyles: string[]; inlineScripts: string[] }>(async (app, { inlineStyles, inlineScripts }) => {
  // helmet itself, built once: @fastify/helmet built it again on every request (parsing the CSP
  // directives each time), 3 % of an upload's time on the main thread in the ingest bench.
  const setHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // Our files, and the inline scripts the prerendered pages carry (today's date, the worker, /r/'s first screen).
        scriptSrc: ["'self'", ...new Set([TODAY_SCRIPT, REGISTER_WORKER_SCRIPT, ...inlineScripts].map(hashOf))],
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
  app.addHook('onSend', (req, reply, payload, done) => {
    if (isSubresource(req.url, reply.getHeader('content-type'))) for (const name of DOCUMENT_ONLY_HEADERS) reply.raw.removeHeader(name);
    done(null, payload);
  });
});

/**
 * Headers that govern a document (or a worker) and nothing fetched by one: 441 B of CSP alone on
 * each of /r/'s two dozen files, a tenth of a first visit's bytes. Kept on subresources: nosniff
 * and Cross-Origin-Resource-Policy (both act on the fetch), and Strict-Transport-Security (any
 * response may be the first the browser sees). Referrer-Policy goes too: on a stylesheet it would
 * govern its url() fetches, and ours is the browsers' default, the same value.
 */
export const DOCUMENT_ONLY_HEADERS = [
  'content-security-policy',
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
] as const;

/**
 * Only types a browser never renders as a page of ours: SVG is an image yet runs script when opened
 * on its own, so it keeps the CSP, as do HTML, JSON and anything untyped. /sw.js is a worker
 * script: its CSP is the one the worker runs under.
 */
const SUBRESOURCE_TYPE = /^(?:text\/css|(?:text|application)\/javascript|image\/(?!svg)|font\/|audio\/|video\/|application\/manifest\+json|application\/wasm)/i;

function isSubresource(url: string, contentType: unknown): boolean {
  if (typeof contentType !== 'string' || !SUBRESOURCE_TYPE.test(contentType)) return false;
  return url.split('?')[0] !== '/sw.js';
}
