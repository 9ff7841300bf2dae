/**
 * Resumable note uploads on the wire: the upload resource /api/r/:token/uploads/:noteId (HEAD,
 * PATCH, DELETE), and creation through the note's PUT when it carries Upload-Complete.
 */
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_NOTE_BYTES, NoteParamsSchema } from '../../src/shared/api.js';
import type { LinkView } from '../db/repository.js';
import { cutTolerant, type CutTolerantBody } from '../uploads/body.js';
import { APPEND_IDLE_MS } from '../uploads/append.js';
import { INTEROP_VERSION, parseBoolean, parseOffset, uploadLimit, uploadPath, UploadProblem } from '../uploads/protocol.js';
import type { UploadOutcome, UploadService } from '../uploads/service.js';

const lengthOf = (req: FastifyRequest) => {
  const declared = req.headers['content-length'];
  return declared === undefined ? undefined : Number(declared);
};

/** The draft's problems go out as problem+json; every other error takes the API's one error path. */
async function answering(reply: FastifyReply, work: () => Promise<unknown>) {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof UploadProblem)) throw err;
    return reply.code(err.statusCode).headers(err.headers).type('application/problem+json').send(err.body());
  }
}

function send(reply: FastifyReply, token: string, noteId: string, outcome: UploadOutcome, now = Date.now()) {
  switch (outcome.kind) {
    case 'complete':
      return reply.code(201).header('upload-complete', '?1').send(outcome.receipt);
    case 'partial':
      return reply
        .code(201)
        .headers({
          location: uploadPath(token, noteId.toLowerCase()),
          'upload-complete': '?0',
          'upload-offset': String(outcome.offset),
          'upload-limit': uploadLimit(outcome.upload.expiresAt, now),
        })
        .send();
    case 'cut':
      // Nobody is listening; answer as a whole PUT cut short would.
      return reply.code(400).send({ error: 'upload_interrupted', message: 'The upload was cut off before it finished. It will be sent again.' });
  }
}

/**
 * 104 (Upload Resumption Supported) goes only to clients that named our interop version, as the
 * draft requires. Node has no API for other 1xx than 100/102/103, so it is written on the socket
 * before any of the final response is.
 */
function sendInterim(req: FastifyRequest, reply: FastifyReply, location: string, limit: string) {
  if (req.headers['upload-draft-interop-version'] !== String(INTEROP_VERSION)) return;
  const socket = req.raw.socket;
  if (req.raw.httpVersion !== '1.1' || !(socket instanceof Socket) || socket.destroyed || reply.raw.headersSent) return;
  socket.write(
    `HTTP/1.1 104 Upload Resumption Supported\r\nLocation: ${location}\r\nUpload-Limit: ${limit}\r\n` +
      `Upload-Draft-Interop-Version: ${INTEROP_VERSION}\r\n\r\n`,
  );
}

/** A PUT of a note is an upload creation when it says Upload-Complete (the draft's "upgrading" of a plain upload). */
export const isUploadCreation = (req: FastifyRequest) => parseBoolean(req.headers['upload-complete']) !== undefined;

const bodies = new WeakMap<FastifyRequest, CutTolerantBody>();

/**
 * A preParsing hook: reads the body from the moment the request arrives, before the live-link
 * check and the other database round trips, so a connection that drops meanwhile keeps what came.
 */
export async function readAhead(req: FastifyRequest, _reply: FastifyReply, payload: Readable): Promise<Readable> {
  if (req.method === 'PUT' && !isUploadCreation(req)) return payload;
  const body = cutTolerant(payload, APPEND_IDLE_MS);
  bodies.set(req, body);
  return body.stream;
}

export interface NoteTarget {
  link: LinkView;
  token: string;
  noteId: string;
  marker: string;
  from: string;
}

export function createUpload(service: UploadService, req: FastifyRequest, reply: FastifyReply, { link, token, noteId, marker, from }: NoteTarget) {
  return answering(reply, async () => {
    const outcome = await service.create({
      link,
      address: req.ip,
      noteId,
      marker,
      from,
      contentType: req.headers['content-type'],
      contentLength: lengthOf(req),
      digest: req.headers['repr-digest'] ?? req.headers['content-digest'],
      uploadLength: parseOffset(req.headers['upload-length']),
      complete: parseBoolean(req.headers['upload-complete'])!,
      body: bodies.get(req),
      onResource: (upload) => sendInterim(req, reply, uploadPath(token, upload.noteId), uploadLimit(upload.expiresAt, Date.now())),
    });
    return send(reply, token, noteId, outcome);
  });
}

export interface UploadRoutesOptions {
  uploads: UploadService;
  /** The live link of a request, from the recorder API's one live-link check. */
  liveLink: (req: FastifyRequest) => LinkView;
}

/** Registered inside the recorder API, so its live-link check, rate limit and raw bodies apply here too. */
export const uploadRoutes: FastifyPluginAsyncTypebox<UploadRoutesOptions> = async (app, { uploads, liveLink }) => {
  const params = NoteParamsSchema;

  app.route({
    method: 'HEAD',
    url: '/r/:token/uploads/:noteId',
    schema: { summary: 'Resumable upload of a note: the offset the server holds (Upload-Offset, Upload-Complete)', params },
    handler: async (req, reply) => {
      const state = await uploads.state(liveLink(req), req.params.noteId);
      reply.headers({
        'upload-offset': String(state.offset),
        'upload-complete': state.complete ? '?1' : '?0',
        'cache-control': 'no-store',
        // The append that follows then opens a fresh connection: a browser resends a request cut
        // on a reused connection by itself, whole, which on a dropping link wastes what it sends.
        connection: 'close',
      });
      if (state.length !== null) reply.header('upload-length', String(state.length));
      if (state.expiresAt !== undefined) reply.header('upload-limit', uploadLimit(state.expiresAt, Date.now()));
      return reply.code(204).send();
    },
  });

  app.patch('/r/:token/uploads/:noteId', {
    bodyLimit: MAX_NOTE_BYTES,
    preParsing: readAhead,
    schema: { summary: 'Resumable upload of a note: append application/partial-upload at Upload-Offset', params },
  }, (req, reply) =>
    answering(reply, async () => {
      const { token, noteId } = req.params;
      const outcome = await uploads.append({
        link: liveLink(req),
        noteId,
        offset: parseOffset(req.headers['upload-offset']),
        complete: parseBoolean(req.headers['upload-complete']),
        uploadLength: parseOffset(req.headers['upload-length']),
        contentLength: lengthOf(req),
        contentType: req.headers['content-type'],
        body: bodies.get(req),
      });
      if (outcome.kind === 'partial') {
        return reply.code(204).headers({ 'upload-complete': '?0', 'upload-offset': String(outcome.offset) }).send();
      }
      return send(reply, token, noteId, outcome);
    }),
  );

  app.delete('/r/:token/uploads/:noteId', { schema: { summary: 'Resumable upload of a note: cancel it', params } }, async (req, reply) => {
    await uploads.cancel(liveLink(req), req.params.noteId);
    return reply.code(204).send();
  });
};

