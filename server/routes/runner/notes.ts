/**
 * A note's audio (its runner only: session or a short-lived signed URL; sent in full, it marks the
 * note as on the runner's phone), the 'heard' receipt the runner's app sends, and the runner
 * removing a note. The sender's view of both is a recorder route (../recorder.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AudioQuerySchema, IdParamsSchema, PlayedSchema, PlayReceiptSchema } from '../../../contract/runnerApi.js';
import { API_ROUTES } from '../../../contract/paths.js';
import { audioSignatureValid } from '../../auth/audio-url.js';
import { audioAnswers, emptyAnswer, refusals } from '../../http/contract.js';
import { refusal, runnerRefusal } from '../../http/refusals.js';
import { entryRefusal } from '../../http/session-refusals.js';
import { sendAudio } from '../../runner/audio.js';
import { deleteRunnerNote } from '../../runner/note-deletion.js';
import { currentRunner, notSignedIn, requireRunner, BEARER, type RunnerContext } from './context.js';

const bearer = BEARER;

const audioLinkExpired = entryRefusal.audio_link_expired;

export const noteRoutes: FastifyPluginAsyncTypebox<{ ctx: RunnerContext }> = async (app, { ctx }) => {
  const { repo } = ctx;

  app.get(
    API_ROUTES.noteAudio,
    {
      schema: {
        operationId: 'getNoteAudio',
        summary: 'A converted note (M4A) for its runner: bearer session or the signed audioUrl',
        description:
          "Strong ETag (the file's SHA-256) with 304 to If-None-Match; one byte range per request (206 with Content-Range, 416 past the end) honouring If-Range, so a cut download resumes. A note whose file is gone from the store answers 404 audio_gone (asking again will not bring it back).",
        security: [{ bearer: [] }, {}],
        params: IdParamsSchema,
        querystring: AudioQuerySchema,
        response: { ...audioAnswers(), ...refusals(notSignedIn, audioLinkExpired, refusal.note_not_found, runnerRefusal.audio_gone) },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const { expires, sig } = req.query;
      let allowed: boolean;
      if (expires !== undefined && sig !== undefined) {
        if (!audioSignatureValid(ctx.auth.sessionSecret, id, expires, sig)) throw audioLinkExpired();
        allowed = true;
      } else {
        const account = await currentRunner(ctx, req);
        if (!account) throw notSignedIn();
        const note = await repo.entries.findOwnedNote(id);
        allowed = note?.accountId === account.id;
      }
      const note = allowed ? await repo.entries.findOwnedNote(id) : undefined;
      // Another runner's note and a missing note answer alike, so ids reveal nothing.
      if (note?.status !== 'converted' || !note.convertedKey) throw refusal.note_not_found();
      const audio = await ctx.repo.jobs.convertedAudio(note.id);
      if (!audio) throw refusal.note_not_found();
      // The runner's app has it in full: its sender may now read that it is on the runner's phone.
      const onPhone = () =>
        void repo.notes.markOnPhone(note.id, new Date().toISOString()).catch((err) => req.log.error({ err }, 'could not record a note on the phone'));
      return sendAudio(req, reply, ctx.blobs, audio, onPhone);
    },
  );

  app.post(
    API_ROUTES.notePlayed,
    {
      schema: {
        operationId: 'reportNotePlayed',
        summary: 'Report that a note was played; its sender then sees “Heard at …”',
        security: bearer,
        params: IdParamsSchema,
        body: PlayedSchema,
        response: { 200: PlayReceiptSchema, ...refusals(refusal.note_not_found, refusal.unknown_marker) },
      },
    },
    async (req) => {
      const account = await requireRunner(ctx, req);
      const note = await repo.entries.findOwnedNote(req.params.id);
      if (!note || note.accountId !== account.id) throw refusal.note_not_found();
      // The sender's pushes are queued with the first play, in its transaction; the push worker sends
      // them after this answer, so the report never waits on a push service.
      const play = await repo.plays.record(
        note.id,
        { playedAt: new Date(req.body.playedAt).toISOString(), marker: req.body.marker },
        ctx.push.heardPushes(Date.now()),
      );
      ctx.push.played();
      return { id: note.id, heardAt: play.playedAt, heardAtMarker: play.marker };
    },
  );

  app.delete(
    API_ROUTES.runnerNote,
    {
      schema: {
        operationId: 'deleteNote',
        summary: 'Remove a note: it leaves every list (the app hears of it through after=), its files are deleted, it never plays. Again: 204 too',
        security: bearer,
        params: IdParamsSchema,
        response: { 204: emptyAnswer('Removed, now or before.'), ...refusals(notSignedIn, refusal.note_not_found) },
      },
    },
    async (req, reply) => {
      const account = await requireRunner(ctx, req);
      // Another runner's note answers as a missing one, so ids reveal nothing.
      if (!(await deleteRunnerNote(repo, ctx.blobs, account.id, req.params.id))) throw refusal.note_not_found();
      return reply.code(204).send(null);
    },
  );
};
