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
import { linkNotFound } from '../http/problem.js';
import { linkIdOf } from '../links.js';
import { receiveNote } from '../notes/receive.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { Readable } from 'node:stream';
import type { UploadService } from '../uploads/service.js';
import { createUpload, isUploadCreation } from './uploads.js';

export interface RecorderRoutesOptions {
  repo: Repository;
  blobs: BlobStore;
  onNoteAccepted: () => void;
  /** Resumable uploads, when turned on (RESUMABLE_UPLOADS). */
  uploads?: UploadService;
}

export const recorderRoutes: FastifyPluginAsyncTypebox<RecorderRoutesOptions> = async (app, { repo, blobs, onNoteAccepted, uploads }) => {
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
  }, async (req, reply) => {
    if (uploads && isUploadCreation(req)) {
      await createUpload(uploads, req, reply, { ...req.params, ...req.query });
      return;
    }
    const declared = req.headers['content-length'];
    const receipt = await receiveNote({ repo, blobs, log: req.log, onAccepted: onNoteAccepted }, {
      token: req.params.token,
      noteId: req.params.noteId,
      marker: req.query.marker,
      from: req.query.from,
      contentType: req.headers['content-type'],
      contentLength: declared === undefined ? undefined : Number(declared),
      contentDigest: req.headers['content-digest'],
      body: req.body as Readable | undefined,
    });
    return reply.code(201).send(receipt);
  });
};
