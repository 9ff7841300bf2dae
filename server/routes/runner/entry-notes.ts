/**
 * The notes of a runner's entry for the app, made for a bad cell link on race day: a strong ETag
 * (304 to If-None-Match), a cursor on every answer, `after=<cursor>` for only what changed since,
 * and `wait=<seconds>` to hold the answer until something does (server/sync owns the held ones).
 */
import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { markersFor } from '../../../contract/markers.js';
import { EntryNotesSchema, IdParamsSchema, NotesQuerySchema, type EntryNotes } from '../../../contract/runnerApi.js';
import { API_ROUTES } from '../../../contract/paths.js';
import { signAudio } from '../../auth/audio-url.js';
import type { EntryNote } from '../../db/repository.js';
import { noneMatch } from '../../http/conditional.js';
import { emptyAnswer, refusals, withHeaders, type HeaderDocs } from '../../http/contract.js';
import { entryNotFound } from '../../http/problem.js';
import { runnerRefusal } from '../../http/refusals.js';
import { decodeCursor, encodeCursor } from '../../sync/cursor.js';
import { changesAfter as heldChangesAfter, CursorAhead, playable, type HeldAnswer, type HeldAsk } from '../../sync/held-changes.js';
import { spreadHold, TooManyHeld } from '../../sync/note-changes.js';
import { markWoken } from '../../sync/woken-mark.js';
import { notSignedIn, requireRunner, BEARER, type RunnerContext } from './context.js';

/** A refused held request asks again after this long (perhaps reaching another server). */
const SYNC_BUSY_RETRY_SECONDS = 5;

/** A strong validator: the hash of the very answer, so equal tags mean equal bytes. */
const etagOf = (body: EntryNotes) => `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;

const LIST_HEADERS: HeaderDocs = {
  etag: { description: 'Strong validator of this very answer: send it as If-None-Match to get 304 while nothing changed.', required: true },
  'cache-control': { description: '`private, no-cache`: keep it, but ask (If-None-Match) before using it again.', required: true },
};

export const entryNoteRoutes: FastifyPluginAsyncTypebox<{ ctx: RunnerContext }> = async (app, { ctx }) => {
  const { repo, sync } = ctx;

  /**
   * Signed for a whole step of time, so the same notes give the same bytes (and ETag) for half
   * the URL's life: the expiry is rounded down to a step, never past the TTL.
   */
  const noteBody = (n: EntryNote, nowMs: number) => {
    const ttl = ctx.auth.audioUrlTtlSeconds;
    const step = Math.max(1, Math.floor(ttl / 2));
    const expires = Math.floor((nowMs / 1000 + ttl) / step) * step;
    const signed = playable(n) ? signAudio(ctx.auth.sessionSecret, n.id, ttl, (expires - ttl) * 1000) : undefined;
    return {
      id: n.id,
      from: n.from,
      durationMs: n.durationMs,
      status: n.status,
      receivedAt: n.receivedAt,
      audioUrl: signed ? `${ctx.publicUrl}/api/notes/${n.id}/audio?expires=${signed.expires}&sig=${signed.sig}` : null,
      audioUrlExpiresAt: signed ? new Date(signed.expires * 1000).toISOString() : null,
      heardAt: n.play?.playedAt ?? null,
    };
  };

  const byMarker = (notes: EntryNote[], summary: boolean) => {
    const now = Date.now();
    // Every marker id there is, not only the race's, so no note can fall out of the listing.
    return markersFor(['mi', 'km'])
      .map((m) => {
        const here = notes.filter((n) => n.marker === m.id);
        return { marker: m.id, label: m.label, count: here.length, ...(summary ? {} : { notes: here.map((n) => noteBody(n, now)) }) };
      })
      .filter((m) => m.count > 0);
  };

  /** The held sync (server/sync/held-changes.ts) for this request: its refusals, and the wake the metrics time. */
  async function changesAfter(req: FastifyRequest, reply: FastifyReply, ask: Omit<HeldAsk, 'left'>): Promise<HeldAnswer> {
    const left = new AbortController();
    const close = () => left.abort();
    reply.raw.once('close', close);
    try {
      const answer = await heldChangesAfter(sync.hub, repo.notes, { ...ask, left: left.signal });
      if (answer.wokenAt !== undefined) {
        markWoken(req, answer.wokenAt);
        req.log.debug({ runnerId: ask.runnerId }, 'held sync request woken by a change');
      }
      return answer;
    } catch (err) {
      if (err instanceof TooManyHeld) throw runnerRefusal.sync_busy(SYNC_BUSY_RETRY_SECONDS);
      if (err instanceof CursorAhead) throw runnerRefusal.invalid_cursor();
      throw err;
    } finally {
      reply.raw.off('close', close);
    }
  }

  app.get(
    API_ROUTES.entryNotes,
    {
      // A held request is a phone waiting, not a client hammering: no rate limiter counts it
      // (server/sync caps how many a process and an account hold instead).
      config: { rateLimit: false },
      schema: {
        operationId: 'listEntryNotes',
        summary:
          'Notes grouped by marker (?summary=1: counts only); after=<cursor> for what changed since, wait=<s> to hold until it does (until=playable: until a note is playable or removed)',
        security: BEARER,
        params: IdParamsSchema,
        querystring: NotesQuerySchema,
        response: {
          200: withHeaders(EntryNotesSchema, LIST_HEADERS),
          304: emptyAnswer('Not modified: If-None-Match names this very list.', LIST_HEADERS),
          ...refusals(runnerRefusal.invalid_cursor, runnerRefusal.cursor_required, notSignedIn, entryNotFound, runnerRefusal.sync_busy),
        },
      },
    },
    async (req, reply) => {
      const account = await requireRunner(ctx, req);
      const readAt = performance.now();
      const entry = await repo.entries.toSync(account.id, req.params.id);
      if (!entry) throw entryNotFound();
      const { after, wait, until } = req.query;
      const summary = req.query.summary === '1';
      let body: EntryNotes;
      if (after === undefined) {
        if (wait !== undefined) throw runnerRefusal.cursor_required();
        // The number first (read with the entry): a change landing during the read is listed now and again after it, never lost.
        const seq = entry.changeSeq;
        body = {
          entryId: entry.id,
          markers: byMarker(await repo.entries.notes(entry.id), summary),
          cursor: encodeCursor(entry.id, seq),
          raceStartsAt: entry.raceStartsAt,
        };
      } else {
        const since = decodeCursor(entry.id, after);
        if (since === undefined) throw runnerRefusal.invalid_cursor();
        const holdMs = spreadHold(Math.min((wait ?? 0) * 1000, sync.maxHoldMs));
        const { changes, held } = await changesAfter(req, reply, {
          runnerId: entry.runnerId,
          accountId: account.id,
          since,
          holdMs,
          untilPlayable: until === 'playable',
          known: { seq: entry.changeSeq, readAt },
        });
        // Read again (with the changes) after a hold: the operator may have moved the start meanwhile (npm run admin -- edit-race).
        const raceStartsAt = held ? (changes.raceStartsAt ?? entry.raceStartsAt) : entry.raceStartsAt;
        body = {
          entryId: entry.id,
          markers: byMarker(changes.notes, summary),
          removed: changes.removed,
          cursor: encodeCursor(entry.id, changes.seq),
          raceStartsAt,
        };
      }
      const etag = etagOf(body);
      // Private: signed audio URLs inside. no-cache: a cache may keep it but must ask (If-None-Match) each time.
      reply.header('etag', etag).header('cache-control', 'private, no-cache');
      if (noneMatch(req.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return body;
    },
  );
};
