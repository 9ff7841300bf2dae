/**
 * Serves the built site from distDir: prerendered pages, the /r/:token shell (with the link's data
 * in it: ./recorder-page.ts), hashed assets
 * (cached for a year), the service worker (never cached), and a 404 page for other paths.
 * Text files go out as the .br or .gz sibling the build wrote (scripts/precompress.mjs), chosen
 * by Accept-Encoding, with `Vary: Accept-Encoding` and a strong ETag per encoding.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { API_PREFIX, NOT_FOUND_PAGE, PAGES } from '../../contract/paths.js';
import { siteNotFound } from '../http/problem.js';
import type { HomePage } from './home-page.js';
import { recorderPage, type RecorderPageOptions } from './recorder-page.js';

/** The text of each block the built pages carry inline, as `pattern` finds it; none when the site is not built. */
function inlineBlocksOf(distDir: string, pattern: RegExp): string[] {
  return Object.values(PAGES).flatMap(({ file }) => {
    const html = path.join(distDir, file);
    if (!existsSync(html)) return [];
    return [...readFileSync(html, 'utf8').matchAll(pattern)].map((m) => m[1]!);
  });
}

/**
 * The <style> blocks of the built pages (the screens' shells carry the stylesheet inline, see
 * scripts/build.mjs), for the CSP to allow by hash.
 */
export const inlineStylesOf = (distDir: string): string[] => inlineBlocksOf(distDir, /<style>([\s\S]*?)<\/style>/g);

/**
 * The inline <script> blocks of the built pages (today's date, the worker's registration, and r.html's
 * first screen: scripts/build.mjs), for the CSP to allow by hash. A data block (type="application/json") is not one.
 */
export const inlineScriptsOf = (distDir: string): string[] => inlineBlocksOf(distDir, /<script>([\s\S]*?)<\/script>/g);

function cacheControlFor(sentPath: string): string {
  const filePath = sentPath.replace(/\.(?:br|gz)$/, '');
  if (filePath.includes(`${path.sep}assets${path.sep}`)) return 'public, max-age=31536000, immutable';
  if (filePath.endsWith('.html') || filePath.endsWith('sw.js')) return 'no-cache';
  return 'public, max-age=3600';
}

/**
 * `home`: the home page with the catalogue's races (./home-page.ts); `recorder`: /r/:token with the
 * link's data in it (./recorder-page.ts). Without them, the build's files as they are.
 */
export const site: FastifyPluginAsync<{ distDir: string; home?: HomePage; recorder?: Omit<RecorderPageOptions, 'distDir'> }> = async (
  app,
  { distDir, home, recorder },
) => {
  const built = existsSync(path.join(distDir, 'index.html'));
  if (!built) app.log.warn({ distDir }, 'site is not built: run `npm run build` (npm start does it for you)');

  await app.register(fastifyStatic, {
    root: distDir,
    index: false,
    wildcard: true,
    // The server's own files in the site's folder (the first screen's renderer under .server/) are never sent.
    dotfiles: 'ignore',
    preCompressed: true,
    setHeaders: (reply, filePath) => {
      reply.header('cache-control', cacheControlFor(filePath));
      // @fastify/send marks its ETag weak, yet it is the size and mtime of the very file sent, and
      // each encoding is a file of its own: strong, as nginx sends it. If-None-Match still matches.
      const etag = reply.getHeader('etag');
      if (typeof etag === 'string') reply.header('etag', etag.replace(/^W\//, ''));
    },
  });

  const sendPage = (reply: FastifyReply, file: string, status = 200) => {
    if (!built) return reply.code(503).type('text/plain').send('The site is not built yet. Run `npm run build`.');
    return reply.code(status).sendFile(file);
  };

  if (recorder) await app.register(recorderPage, { distDir, ...recorder });
  for (const { route, file } of Object.values(PAGES)) {
    if (file === PAGES.recorder.file && recorder) continue;
    if (file === PAGES.home.file && home && built) {
      let told = false;
      app.get(route, async (req, reply) => {
        try {
          return await home.handle(req, reply);
        } catch (err) {
          // A build without the cards' markers, say: the built page as it is, the spec's nine on it; said once.
          if (!told) req.log.error({ err }, 'home page could not be rendered; sending the built one');
          told = true;
          return reply.header('cache-control', 'no-cache').sendFile(file);
        }
      });
    } else app.get(route, (_req, reply) => sendPage(reply, file));
  }

  app.setNotFoundHandler((req, reply) => {
    const wantsHtml = req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
    if (wantsHtml && !req.url.startsWith(`${API_PREFIX}/`)) return sendPage(reply, NOT_FOUND_PAGE.file, 404);
    const nothing = siteNotFound(`${req.method} ${req.url.split('?')[0]}`);
    return reply.code(nothing.statusCode).send(nothing.body());
  });
};
