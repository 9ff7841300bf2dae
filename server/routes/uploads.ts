/**
 * Resumable note uploads on the wire: the upload resource /api/r/:token/uploads/:noteId (HEAD,
 * PATCH, DELETE), and creation through the note's PUT when it carries Upload-Complete. Headers are
 * read through the schemas of ../intake/resumable/protocol.ts; every refusal takes the API's one error path.
 */
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_NOTE_BYTES, NoteParamsSchema, NoteReceiptSchema } from '../../contract/api.js';
import { INTEROP_VERSION, sfBoolean, UPLOAD_HEADER, UPLOAD_PROBLEM } from '../../contract/uploadProtocol.js';
import { API_ROUTES, uploadPath } from '../../contract/paths.js';
import type { LinkView } from '../db/repository.js';
import { NOTE_UPLOAD } from '../http/note-upload-mark.js';
import { emptyAnswer, refusals, type HeaderDocs } from '../http/contract.js';
import { refusal } from '../http/refusals.js';
import { APPEND_IDLE_MS } from '../intake/resumable/append.js';
import { cutTolerant, type CutTolerantBody } from '../intake/resumable/body.js';
import { AppendHeadersSchema, sfInteger, uploadLimit } from '../intake/resumable/protocol.js';
import type { Creation, UploadOutcome, UploadService } from '../intake/resumable/service.js';

/** What a request carrying a note's bytes (the PUT, an append) may be refused for, beyond its own checks. */
export const BYTES_REFUSALS = [
  refusal.link_not_found,
  refusal.invalid_note_id,
  refusal.rate_limited,
  refusal.too_many_open_uploads,
  refusal.not_audio,
  refusal.too_large,
  refusal.upload_interrupted,
  refusal.digest_mismatch,
  refusal.note_conflict,
  refusal.address_rate_limited,
  refusal.link_full,
  refusal.link_storage_full,
  refusal.note_removed,
  refusal.upload_busy,
  refusal[UPLOAD_PROBLEM.inconsistentLength],
];

const OFFSET: HeaderDocs[string] = { description: 'How many bytes of the note the server holds.' };
const COMPLETE: HeaderDocs[string] = { description: '?1 once the note is whole, else ?0.' };
const LIMIT: HeaderDocs[string] = { description: 'max-size, max-append-size and max-age (seconds left) of the upload.' };

/** The headers of a note's PUT answer: all of them when it created a resumable upload, Upload-Complete when it completed one. */
export const CREATED_UPLOAD_HEADERS = {
  location: { type: 'string', description: 'The upload resource, for HEAD/PATCH/DELETE.' },
  [UPLOAD_HEADER.complete]: { type: 'string', description: COMPLETE.description },
  [UPLOAD_HEADER.offset]: { type: 'string', description: OFFSET.description },
  [UPLOAD_HEADER.limit]: { type: 'string', description: LIMIT.description },
};

/** Content-Length as a number; undefined for a chunked body. */
export const lengthOf = (req: FastifyRequest) => sfInteger(req.headers['content-length']);

/** The answer to a creation or an append; a PATCH that did not complete the note is a 204. */
function answer(reply: FastifyReply, token: string, noteId: string, outcome: UploadOutcome, append: boolean) {
  switch (outcome.kind) {
    case 'complete':
      return reply.code(201).header(UPLOAD_HEADER.complete, sfBoolean(true)).send(outcome.receipt);
    case 'partial':
      if (append)
        return reply
          .code(204)
          .headers({ [UPLOAD_HEADER.complete]: sfBoolean(false), [UPLOAD_HEADER.offset]: String(outcome.offset) })
          .send();
      return reply
        .code(201)
        .headers({
          location: uploadPath(token, noteId.toLowerCase()),
          [UPLOAD_HEADER.complete]: sfBoolean(false),
          [UPLOAD_HEADER.offset]: String(outcome.offset),
          [UPLOAD_HEADER.limit]: uploadLimit(outcome.upload.expiresAt, Date.now()),
        })
        .send();
    case 'cut':
      // Nobody is listening; answer as a whole PUT cut short would.
      throw refusal.upload_interrupted();
  }
}

/**
 * 104 (Upload Resumption Supported) goes only to clients that named our interop version, as the
 * draft requires. Node has no API for other 1xx than 100/102/103, so it is written on the socket
 * before any of the final response is.
 */
function sendInterim(req: FastifyRequest, reply: FastifyReply, location: string, limit: string) {
  if (req.headers[UPLOAD_HEADER.interopVersion] !== INTEROP_VERSION) return;
  const socket = req.raw.socket;
  if (req.raw.httpVersion !== '1.1' || !(socket instanceof Socket) || socket.destroyed || reply.raw.headersSent) return;
  socket.write(
    `HTTP/1.1 104 Upload Resumption Supported\r\nLocation: ${location}\r\nUpload-Limit: ${limit}\r\n` +
      `Upload-Draft-Interop-Version: ${INTEROP_VERSION}\r\n\r\n`,
  );
}

/** A PUT of a note is an upload creation when it says Upload-Complete (the draft's "upgrading" of a plain upload). */
export const isUploadCreation = (req: FastifyRequest) => req.headers[UPLOAD_HEADER.complete] !== undefined;

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

/** The note a creation request names: what the PUT of a whole note names, and the upload's own headers. */
export type NoteCreation = Omit<Creation, 'digest' | 'uploadLength' | 'complete' | 'body' | 'onResource'> & { token: string };

/** A note's PUT that creates a resumable upload (isUploadCreation). */
export async function createUpload(service: UploadService, req: FastifyRequest, reply: FastifyReply, note: NoteCreation) {
  const outcome = await service.create({
    ...note,
    digest: req.headers['repr-digest'] ?? req.headers['content-digest'],
    uploadLength: sfInteger(req.headers[UPLOAD_HEADER.length] as string | undefined),
    complete: req.headers[UPLOAD_HEADER.complete] === sfBoolean(true),
    body: bodies.get(req),
    onResource: (upload) => sendInterim(req, reply, uploadPath(note.token, upload.noteId), uploadLimit(upload.expiresAt, Date.now())),
  });
  return answer(reply, note.token, note.noteId, outcome, false);
}

export interface UploadRoutesOptions {
  uploads: UploadService;
  /** The live link of a request, from the recorder API's one live-link check. */
  liveLink: (req: FastifyRequest) => LinkView;
}

/** Registered inside the recorder API, so its live-link check, rate limit, upload cap and raw bodies apply here too. */
export const uploadRoutes: FastifyPluginAsyncTypebox<UploadRoutesOptions> = async (app, { uploads, liveLink }) => {
  const params = NoteParamsSchema;

  app.route({
    method: 'HEAD',
    url: API_ROUTES.upload,
    config: { swagger: { exposeHeadRoute: true } },
    schema: {
      operationId: 'getUpload',
      summary: 'Resumable upload of a note: the offset the server holds (Upload-Offset, Upload-Complete)',
      params,
      response: {
        204: emptyAnswer('Where the upload stands.', {
          [UPLOAD_HEADER.offset]: { ...OFFSET, required: true },
          [UPLOAD_HEADER.complete]: { ...COMPLETE, required: true },
          [UPLOAD_HEADER.length]: { description: "The whole note's length, once known." },
          [UPLOAD_HEADER.limit]: LIMIT,
        }),
        ...refusals(refusal.link_not_found, refusal.invalid_note_id, refusal.rate_limited, refusal.upload_not_found),
      },
    },
    handler: async (req, reply) => {
      const state = await uploads.state(liveLink(req), req.params.noteId);
      reply.headers({
        [UPLOAD_HEADER.offset]: String(state.offset),
        [UPLOAD_HEADER.complete]: sfBoolean(state.complete),
        'cache-control': 'no-store',
        // The append that follows then opens a fresh connection: a browser resends a request cut
        // on a reused connection by itself, whole, which on a dropping link wastes what it sends.
        connection: 'close',
      });
      if (state.length !== null) reply.header(UPLOAD_HEADER.length, String(state.length));
      if (state.expiresAt !== undefined) reply.header(UPLOAD_HEADER.limit, uploadLimit(state.expiresAt, Date.now()));
      return reply.code(204).send(null);
    },
  });

  app.patch(
    API_ROUTES.upload,
    {
      bodyLimit: MAX_NOTE_BYTES,
      config: NOTE_UPLOAD,
      preParsing: readAhead,
      schema: {
        operationId: 'appendUpload',
        summary: 'Resumable upload of a note: append application/partial-upload at Upload-Offset',
        params,
        headers: AppendHeadersSchema,
        response: {
          201: {
            ...NoteReceiptSchema,
            description: 'The append completed the note: its receipt.',
            headers: { [UPLOAD_HEADER.complete]: { type: 'string', description: COMPLETE.description } },
          },
          204: emptyAnswer('The append was kept; more is expected.', {
            [UPLOAD_HEADER.offset]: { ...OFFSET, required: true },
            [UPLOAD_HEADER.complete]: { ...COMPLETE, required: true },
          }),
          ...refusals(
            ...BYTES_REFUSALS,
            refusal.not_partial_upload,
            refusal.upload_not_found,
            refusal[UPLOAD_PROBLEM.mismatchingOffset],
            refusal[UPLOAD_PROBLEM.completedUpload],
          ),
        },
      },
    },
    async (req, reply) => {
      const { token, noteId } = req.params;
      const outcome = await uploads.append({
        link: liveLink(req),
        noteId,
        offset: Number(req.headers[UPLOAD_HEADER.offset]),
        complete: req.headers[UPLOAD_HEADER.complete] === sfBoolean(true),
        uploadLength: sfInteger(req.headers[UPLOAD_HEADER.length]),
        contentLength: lengthOf(req),
        contentType: req.headers['content-type'],
        body: bodies.get(req),
      });
      return answer(reply, token, noteId, outcome, true);
    },
  );

  app.delete(
    API_ROUTES.upload,
    {
      schema: {
        operationId: 'cancelUpload',
        summary: 'Resumable upload of a note: cancel it',
        params,
        response: {
          204: emptyAnswer('The upload and its bytes are gone.'),
          ...refusals(refusal.link_not_found, refusal.invalid_note_id, refusal.rate_limited, refusal.upload_not_found),
        },
      },
    },
    async (req, reply) => {
      await uploads.cancel(liveLink(req), req.params.noteId);
      return reply.code(204).send(null);
    },
  );
};
