/**
 * Owns /r/:token as sent: the build's shell (dist/r.html) with the link's data in it as a JSON data
 * block (contract/linkData.ts) and, for a live link, the recorder's first screen drawn in the
 * sender's language (Accept-Language; ./recorder-screen.ts), which the page's first script makes
 * record before React arrives; `no-store`, since it names the runner and the server's clock. A live
 * link opened in a browser is remembered for the phone here as GET /api/r/:token does
 * (server/devices); an unknown or revoked one carries the API's 404, and the page says so. Over the
 * per-client limit, or when the data cannot be read, the shell goes as it is and the page asks the
 * API; when the screen cannot be drawn, the page draws it once React is in.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { linkDataBlock, type LinkData } from '../../contract/linkData.js';
import { PAGES, TOKEN_PATTERN } from '../../contract/paths.js';
import type { Clock } from '../clock.js';
import type { Repository } from '../db/repository.js';
import type { Devices } from '../devices/index.js';
import { addressKey } from '../http/client-key.js';
import { refusal } from '../http/refusals.js';
import { linkIdOf } from '../links.js';
import { recorderLinkOf } from './recorder-link.js';
import { pageOf, recorderScreen, type DrawnScreen } from './recorder-screen.js';

export interface RecorderPageOptions {
  distDir: string;
  repo: Repository;
  clock: Clock;
  /** The phones links are opened on (the device cookie), as the API's. */
  devices: Devices;
  /** Pages with the link's data per client and link a minute (RATE_LIMIT_PER_MINUTE, as the API's). */
  rateLimitPerMinute: number;
}

const TOKEN = new RegExp(TOKEN_PATTERN);

const notFound = (): LinkData => {
  const problem = refusal.link_not_found();
  return { status: problem.statusCode, body: problem.body() };
};

export const recorderPage: FastifyPluginAsync<RecorderPageOptions> = async (app, { distDir, repo, clock, devices, rateLimitPerMinute }) => {
  await app.register(rateLimit, {
    global: false,
    max: rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => `page|${addressKey(req.ip)}|${(req.params as { token?: string }).token ?? ''}`,
  });
  const limited = app.createRateLimit();
  const built = recorderScreen(distDir);

  /**
   * What GET /api/r/:token would answer now; the phone remembers a live link as it does there, when
   * a browser opens the page (Sec-Fetch-Dest: document, sent by every browser since 2023). A
   * messaging app's link preview fetches the page too, and is no phone. A browser too old to say so
   * is remembered the next time its recorder asks the API: every minute while the race is live, and
   * at once on a visit the worker answers with its shell.
   */
  async function linkData(req: FastifyRequest, reply: FastifyReply, token: string): Promise<LinkData> {
    if (!TOKEN.test(token)) return notFound();
    const link = await repo.links.find(linkIdOf(token));
    if (!link || link.revoked) return notFound();
    const body = await recorderLinkOf(repo, clock, link);
    if (req.method === 'GET' && req.headers['sec-fetch-dest'] === 'document') {
      await devices.opened(req, reply, link, token, Date.now()).catch((err: unknown) => req.log.warn({ err }, 'could not remember the link for this phone'));
    }
    return { status: 200, body };
  }

  /** The first screen for a live link, in the language the request asks for; undefined when it cannot be drawn (React draws it then). */
  async function drawn(req: FastifyRequest, token: string, data: LinkData | undefined): Promise<DrawnScreen | undefined> {
    if (data?.status !== 200) return undefined;
    const acceptLanguage = req.headers['accept-language'];
    return built.draw({ token, link: data.body, acceptLanguage }).catch((err: unknown) => {
      req.log.warn({ err }, 'the recorder page goes without its first screen; React draws it');
      return undefined;
    });
  }

  app.get<{ Params: { token: string } }>(PAGES.recorder.route, async (req, reply) => {
    const shell = await built.shell();
    if (!shell) return reply.code(503).type('text/plain').send('The site is not built yet. Run `npm run build`.');
    let data: LinkData | undefined;
    const limit = await limited(req);
    if (limit.isAllowed || !limit.isExceeded) {
      data = await linkData(req, reply, req.params.token).catch((err: unknown) => {
        req.log.warn({ err }, 'the recorder page goes without its link data; the page asks the API');
        return undefined;
      });
    }
    return reply
      .header('cache-control', 'no-store')
      .header('vary', 'Accept-Language')
      .type('text/html; charset=utf-8')
      .send(pageOf(shell, data ? `${linkDataBlock(data)}\n  ` : '', await drawn(req, req.params.token, data)));
  });
};
