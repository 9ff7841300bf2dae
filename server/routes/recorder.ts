/** The recorder API, authorised by the link token alone: what to show, and note uploads. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ApiErrorSchema,
  MAX_NOTE_BYTES,
  NoteParamsSchema,
  NoteQuerySchema,
  NoteReceiptSchema,
  RecorderLinkSchema,
  TokenParamsSchema,
} from '../../src/shared/api.js';
import { markersFor } from '../../src/shared/markers.js';
import type { Repository } from '../db/repository.js';
import { ApiProblem, linkNotFound } from '../http/problem.js';
import { linkIdOf } from '../links.js';
import type { OpenUploads } from '../notes/open-uploads.js';
import type { UploadQuota } from '../notes/quota.js';
import { receiveNote } from '../notes/receive.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { Readable } from 'node:stream';

export interface RecorderRoutesOptions {
  repo: Repository;
  blobs: BlobStore;
  quota: UploadQuota;
  openUploads: OpenUploads;
  onNoteAccepted: () => void;
}

const tooManyOpen = () =>
  new ApiProblem(429, 'too_many_open_uploads', 'Several notes are already being sent from this network. This one will follow in a moment.', {
    'retry-after': '5',
    // The body was not read: do not leave it for the next request on this connection.
    connection: 'close',
  });

export const recorderRoutes: FastifyPluginAsyncTypebox<RecorderRoutesOptions> = async (app, opts) => {
  const { repo, blobs, quota, openUploads, onNoteAccepted } = opts;
  app.get('/r/:token', {
    schema: { params: TokenParamsSchema, response: { 200: RecorderLinkSchema, 404: ApiErrorSchema } },
  }, async (req) => {
    const link = await repo.findLink(linkIdOf(req.params.token));
    if (!link || link.revoked) throw linkNotFound();
    const { race } = link;
    return {
      runner: { displayName: link.runnerName },
      race: { id: race.id, name: race.name, date: race.date, units: race.units },
      markers: markersFor(race.units),
    };
  });

  app.put('/r/:token/notes/:noteId', {
    bodyLimit: MAX_NOTE_BYTES,
    schema: { params: NoteParamsSchema, querystring: NoteQuerySchema, response: { 201: NoteReceiptSchema } },
    // Before the body is read: an address holds a few uploads open at most, stalled or not.
    onRequest: async (req, reply) => {
      if (!openUploads.take(req.ip)) throw tooManyOpen();
      // 'close' comes once the response is sent or the connection is gone, whichever is first.
      reply.raw.once('close', () => openUploads.release(req.ip));
    },
  }, async (req, reply) => {
    const declared = req.headers['content-length'];
    const receipt = await receiveNote({ repo, blobs, quota, log: req.log, onAccepted: onNoteAccepted }, {
      token: req.params.token,
      noteId: req.params.noteId,
      marker: req.query.marker,
      from: req.query.from,
      contentType: req.headers['content-type'],
      contentLength: declared === undefined ? undefined : Number(declared),
      contentDigest: req.headers['content-digest'],
      body: req.body as Readable | undefined,
      address: req.ip,
    });
    return reply.code(201).send(receipt);
  });
};
