/**
 * Owns the home page as sent: the build's prerendered index.html with the carousel's cards replaced
 * by the catalogue's races not over (the next nine by start; the spec's nine when none is), in the
 * HTML itself, so a visitor without JavaScript sees them, and the App Store badge by the one for
 * this server's APP_STORE_URL (a link only when there is one). One rendering, with its brotli and gzip,
 * serves every request for `cacheMs` (at most a minute: a race added on any server shows on every
 * server within it, with no restart); `no-cache` and a strong ETag per encoding make browsers and the
 * service worker ask again each time, so none keeps an older list than this server's.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { APP_BADGE_END, APP_BADGE_START, appBadgeHtml } from '../../contract/appBadge.js';
import {
  GENERIC_RACE_IMAGE,
  MAX_RACE_CARDS,
  RACE_TRACK_END,
  RACE_TRACK_START,
  raceTrackHtml,
  SPEC_RACE_CARDS,
  type RaceCard,
} from '../../contract/raceCards.js';
import { RACES } from '../../contract/races.js';
import type { CardRace, RaceStore } from '../db/repository.js';
import { precompressed, RENDER_BROTLI_QUALITY } from '../precompression.mjs';
import { isMadeRaceImage, raceImageUrl } from '../storage/keys.js';

export interface HomePageDeps {
  distDir: string;
  races: Pick<RaceStore, 'notOver'>;
  /** How long one rendering is served (HOME_PAGE_CACHE_SECONDS). */
  cacheMs: number;
  /** The runner app's App Store page (APP_STORE_URL); unset, the badge says the app is coming. */
  appStoreUrl?: string;
  log: FastifyBaseLogger;
  now?: () => number;
  /** The clock races are over by (the server's, ../clock.ts); the cache's life is on `now`. */
  raceNow?: () => number;
}

type Encoding = 'br' | 'gzip' | 'identity';

interface Rendered {
  bodies: Record<Encoding, Buffer>;
  /** Strong, one per encoding: each is a different byte sequence. */
  etags: Record<Encoding, string>;
  expiresAt: number;
}

const SPEC_CARD = new Map(RACES.map((race, i) => [race.id, SPEC_RACE_CARDS[i]!]));

/** The cards for the races not over; the spec's nine when there are none. */
export function cardsOf(races: readonly CardRace[]): readonly RaceCard[] {
  if (races.length === 0) return SPEC_RACE_CARDS;
  return races.map((race) => {
    // A race of the spec moved to a date ahead keeps its own picture, unless the operator gave one.
    const spec = SPEC_CARD.get(race.id);
    // A picture stored as the operator gave it (by an older server) is not served: the card shows the spec's or the generic one.
    const own = race.image && isMadeRaceImage(race.image.key);
    const image = own ? raceImageUrl(race.image!.key) : (spec?.image ?? GENERIC_RACE_IMAGE);
    return { name: race.name, date: race.date, image, alt: own ? '' : (spec?.alt ?? '') };
  });
}

/** The parts of the built page each rendering writes anew, between their markers. */
const SLOTS = { badge: [APP_BADGE_START, APP_BADGE_END], cards: [RACE_TRACK_START, RACE_TRACK_END] } as const;
type Slot = keyof typeof SLOTS;

/** The built page cut around its slots: the text around them, and which slot comes after each piece but the last. */
interface Template {
  pieces: string[];
  slots: Slot[];
  mtimeMs: number;
}

async function readTemplate(file: string): Promise<Template> {
  const [html, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
  const found = (Object.keys(SLOTS) as Slot[]).map((slot) => {
    const [startMark, endMark] = SLOTS[slot];
    const start = html.indexOf(startMark);
    const end = html.indexOf(endMark, start);
    if (start < 0 || end < 0) throw new Error(`${file} has no ${startMark} ... ${endMark}: rebuild the site (npm run build)`);
    return { slot, start, end: end + endMark.length };
  });
  found.sort((a, b) => a.start - b.start);
  const pieces = found.map((f, i) => html.slice(i === 0 ? 0 : found[i - 1]!.end, f.start));
  return { pieces: [...pieces, html.slice(found.at(-1)!.end)], slots: found.map((f) => f.slot), mtimeMs: info.mtimeMs };
}

/** The encoding to send from Accept-Encoding: brotli, then gzip, then none (q=0 refuses one). */
export function encodingFor(acceptEncoding: string | undefined): Encoding {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return 'identity';
}

export function createHomePage({ distDir, races, cacheMs, appStoreUrl, log, now = Date.now, raceNow = now }: HomePageDeps) {
  const file = path.join(distDir, 'index.html');
  let template: Template | undefined;
  let current: Rendered | undefined;
  let refreshing: Promise<Rendered> | undefined;

  async function render(): Promise<Rendered> {
    const at = now();
    // A rebuild under a running server renames the assets: the page follows the new build.
    if (!template || (await stat(file)).mtimeMs !== template.mtimeMs) template = await readTemplate(file);
    let cards: readonly RaceCard[];
    try {
      cards = cardsOf(await races.notOver(raceNow(), MAX_RACE_CARDS));
    } catch (err) {
      // The database is away: the page still opens, with the list it last had (or the spec's), for a few seconds.
      log.warn({ err }, 'home page: the race catalogue could not be read; serving the last list');
      if (current) return { ...current, expiresAt: at + Math.min(cacheMs, 5_000) };
      cards = SPEC_RACE_CARDS;
    }
    const filled: Record<Slot, string> = { badge: appBadgeHtml(appStoreUrl), cards: raceTrackHtml(cards) };
    const { pieces, slots } = template;
    const identity = Buffer.from(pieces.map((piece, i) => piece + (i < slots.length ? filled[slots[i]!] : '')).join(''));
    const { br, gzip: gzipped } = await precompressed(identity, RENDER_BROTLI_QUALITY);
    const tag = createHash('sha256').update(identity).digest('base64url').slice(0, 22);
    return {
      bodies: { br, gzip: gzipped, identity },
      etags: { br: `"${tag}-br"`, gzip: `"${tag}-gz"`, identity: `"${tag}"` },
      expiresAt: at + cacheMs,
    };
  }

  /** The rendering in force; one refresh at a time, which every request arriving meanwhile waits for. */
  async function page(): Promise<Rendered> {
    if (current && now() < current.expiresAt) return current;
    refreshing ??= render().finally(() => (refreshing = undefined));
    current = await refreshing;
    return current;
  }

  return {
    page,
    async handle(req: FastifyRequest, reply: FastifyReply) {
      const rendered = await page();
      const encoding = encodingFor(req.headers['accept-encoding']);
      const etag = rendered.etags[encoding];
      reply.header('cache-control', 'no-cache').header('vary', 'Accept-Encoding').header('etag', etag);
      const match = req.headers['if-none-match'];
      if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) return reply.code(304).send();
      reply.type('text/html; charset=utf-8');
      if (encoding !== 'identity') reply.header('content-encoding', encoding);
      return reply.send(rendered.bodies[encoding]);
    },
  };
}

export type HomePage = ReturnType<typeof createHomePage>;
