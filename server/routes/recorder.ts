/**
 * The recorder API under /api/r/:token, authorised by the link token alone: what to show, note
 * uploads (raw audio bodies, rate-limited per address and link), and whether a sent note was heard.
 * One live-link check runs before every route here, so a revoked or replaced link is a 404 on all.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { MAX_NOTE_BYTES, NoteParamsSchema, NoteQuerySchema, NoteReceiptSchema, RecorderLinkSchema, TokenParamsSchema } from '../../contract/api.js';
import { markerLabel } from '../../contract/markers.js';
import { NoteHeardSchema, type NoteHeard } from '../../contract/runnerApi.js';
import { API_ROUTES } from '../../contract/paths.js';
import type { LinkView, Repository } from '../db/repository.js';
import type { Devices } from '../devices/index.js';
import { NOTE_UPLOAD } from '../http/note-upload-mark.js';
import { refusals } from '../http/contract.js';
import { refusal } from '../http/refusals.js';
import type { Intake } from '../intake/index.js';
import type { Clock } from '../clock.js';
import { linkIdOf } from '../links.js';
import { addressKey } from '../http/client-key.js';
import { capOpenUploads, type OpenUploads } from '../intake/open-uploads.js';
import type { Push } from '../push/index.js';
import { CreationHeadersSchema } from '../intake/resumable/protocol.js';
import { pushChangeRoutes } from './push-change.js';
import { pushRoutes } from './push.js';
import { recorderLinkOf } from './recorder-link.js';
import { BYTES_REFUSALS, CREATED_UPLOAD_HEADERS, createUpload, isUploadCreation, lengthOf, readAhead, uploadRoutes } from './uploads.js';

export interface RecorderApiOptions {
  repo: Repository;
  rateLimitPerMinute: number;
  openUploads: OpenUploads;
  /** Where a note's bytes go, whole or resumable. */
  intake: Intake;
  /** The phones links are opened on (the device cookie). */
  devices: Devices;
  /** Where the race stands and when the runner is expected where (../clock.ts); the answer says its time and rate. */
  clock: Clock;
  /** This phone's notifications on a link (./push.ts). */
  push: Push;
}

export const recorderApi: FastifyPluginAsyncTypebox<RecorderApiOptions> = async (app, opts) => {
  const { repo, intake, openUploads, devices, clock } = opts;
  const { uploads } = intake;
  // Note bodies reach the routes as the raw request stream: the parent (routes/api.ts) hands every
  // body over untouched, so nothing is buffered whole and the route judges the type by the bytes.

  // A first line against a runaway client, counted in this process's memory (per server). The
  // limits that must hold across servers (notes per link, uploads per address) are counted in
  // the database by server/intake/quota.ts.
  await app.register(rateLimit, {
    max: opts.rateLimitPerMinute,
    timeWindow: 60_000,
    // Per client (an IPv6 client by its /64, as the note limits count it) and link.
    keyGenerator: (req) => `${addressKey(req.ip)}|${(req.params as { token?: string }).token ?? ''}`,
    errorResponseBuilder: (_req, context) => refusal.rate_limited(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
  // Before any body is read: an address holds a few note uploads open at most (the routes marked NOTE_UPLOAD).
  app.addHook('onRequest', capOpenUploads(openUploads));

  // The live-link check, once for every route: after validation, so a malformed token has
  // already become the same link_not_found.
  const liveLinks = new WeakMap<FastifyRequest, LinkView>();
  app.addHook('preHandler', async (req) => {
    const link = await repo.links.find(linkIdOf((req.params as { token: string }).token));
    if (!link || link.revoked) throw refusal.link_not_found();
    liveLinks.set(req, link);
  });
  const liveLink = (req: FastifyRequest): LinkView => liveLinks.get(req)!;

  app.get(
    API_ROUTES.link,
    {
      schema: {
        operationId: 'getRecorderLink',
        summary: 'What the recorder shows: the runner, the race and its markers',
        params: TokenParamsSchema,
        response: { 200: RecorderLinkSchema, ...refusals(refusal.link_not_found, refusal.rate_limited) },
      },
    },
    async (req, reply) => {
      const link = liveLink(req);
      const body = await recorderLinkOf(repo, clock, link);
      // The phone remembers the link (its installed app lists it); a failure to remember never keeps the recorder from opening.
      await devices
        .opened(req, reply, link, req.params.token, Date.now())
        .catch((err: unknown) => req.log.warn({ err }, 'could not remember the link for this phone'));
      return body;
    },
  );

  app.put(
    API_ROUTES.note,
    {
      bodyLimit: MAX_NOTE_BYTES,
      config: NOTE_UPLOAD,
      ...(uploads && { preParsing: readAhead }),
      schema: {
        operationId: 'uploadNote',
        summary: 'Send a note (idempotent by note id and Content-Digest); with Upload-Complete, create a resumable upload',
        params: NoteParamsSchema,
        querystring: NoteQuerySchema,
        ...(uploads && { headers: CreationHeadersSchema }),
        response: {
          201: {
            ...NoteReceiptSchema,
            description: 'The note arrived whole: its receipt. A creation that did not complete it has no body and names its upload in Location.',
            headers: CREATED_UPLOAD_HEADERS,
          },
          ...refusals(refusal.unknown_marker, refusal.invalid_from, refusal.digest_required, ...BYTES_REFUSALS),
        },
      },
    },
    async (req, reply) => {
      const note = {
        link: liveLink(req),
        address: req.ip,
        ...req.params,
        ...req.query,
        contentType: req.headers['content-type'],
        contentLength: lengthOf(req),
        deviceId: devices.idOf(req),
      };
      if (uploads && isUploadCreation(req)) return createUpload(uploads, req, reply, note);
      const receipt = await intake.receive({ ...note, digest: req.headers['content-digest'], body: req.body as Readable | undefined }, req.log);
      return reply.code(201).send(receipt);
    },
  );

  app.get(
    API_ROUTES.noteStatus,
    {
      // Each sender's page polls this for every delivered note; it must not spend the link's upload
      // budget (as before it moved here, it has no limit of its own).
      config: { rateLimit: false },
      schema: {
        operationId: 'getNoteStatus',
        summary: 'For the sender’s recorder: whether its own note is on the runner’s phone, was heard, and where',
        params: NoteParamsSchema,
        response: { 200: NoteHeardSchema, ...refusals(refusal.link_not_found, refusal.invalid_note_id, refusal.note_not_found) },
      },
    },
    async (req): Promise<NoteHeard> => {
      const note = await repo.plays.noteWithPlay(req.params.noteId.toLowerCase());
      // The note must have come through this very link: a note id alone, or a link alone, tells nothing.
      if (!note || note.linkId !== liveLink(req).linkId) throw refusal.note_not_found();
      const onRunnersPhone = note.onPhoneAt !== null;
      if (!note.play) return { id: note.id, status: note.status, onRunnersPhone };
      return {
        id: note.id,
        status: note.status,
        onRunnersPhone,
        heardAt: note.play.playedAt,
        heardAtMarker: note.play.marker,
        heardAtLabel: markerLabel(note.play.marker),
      };
    },
  );

  // The upload resources of resumable uploads, beside the note's PUT (their creation).
  if (uploads) await app.register(uploadRoutes, { uploads, liveLink });
  await app.register(pushRoutes, { push: opts.push, liveLink, clock, devices });
  await app.register(pushChangeRoutes, { push: opts.push, liveLink, devices });
};
