/** Keepsake shares: the runner makes and removes them; the keepsake page reads them by token. Nothing is public unless shared. */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { markerLabel } from '../../../contract/markers.js';
import {
  IdParamsSchema,
  KeepsakeSchema,
  NewShareSchema,
  ShareAudioParamsSchema,
  ShareSchema,
  ShareTokenParamsSchema,
  type Keepsake,
} from '../../../contract/runnerApi.js';
import { API_ROUTES, keepsakeAudioPath, keepsakePath } from '../../../contract/paths.js';
import { hashToken } from '../../auth/tokens.js';
import { audioAnswers, emptyAnswer, refusals } from '../../http/contract.js';
import { entryNotFound, keepsakeNotFound, shareNotFound } from '../../http/problem.js';
import { refusal, runnerRefusal } from '../../http/refusals.js';
import { entryRefusal } from '../../http/session-refusals.js';
import { newToken } from '../../links.js';
import { publicRace } from '../../races/public-race.js';
import { sendAudio } from '../../runner/audio.js';
import type { EntryNote, Share } from '../../db/repository.js';
import { requireRunner, BEARER, type RunnerContext } from './context.js';

const bearer = BEARER;

const eitherEntryOrNote = entryRefusal.bad_request;

export const shareRoutes: FastifyPluginAsyncTypebox<{ ctx: RunnerContext }> = async (app, { ctx }) => {
  const { repo } = ctx;

  /** The share and the playable notes it covers, or a 404 for an unknown or removed share. */
  async function sharedNotes(token: string): Promise<{ share: Share; notes: EntryNote[] }> {
    const share = await repo.shares.find(hashToken(token));
    if (!share) throw keepsakeNotFound();
    const notes = (await repo.entries.notes(share.entryId)).filter((n) => n.status === 'converted' && (share.noteId === null || n.id === share.noteId));
    return { share, notes };
  }

  app.post(
    API_ROUTES.shares,
    {
      schema: {
        operationId: 'createShare',
        summary: 'Share an entry or one note as a keepsake page',
        security: bearer,
        body: NewShareSchema,
        response: { 201: ShareSchema, ...refusals(eitherEntryOrNote, refusal.note_not_found, entryNotFound) },
      },
    },
    async (req, reply) => {
      const account = await requireRunner(ctx, req);
      if ((req.body.entryId === undefined) === (req.body.noteId === undefined)) {
        throw eitherEntryOrNote();
      }
      let entryId: string;
      let noteId: string | null = null;
      if (req.body.noteId !== undefined) {
        const note = await repo.entries.findOwnedNote(req.body.noteId);
        if (!note || note.accountId !== account.id) throw refusal.note_not_found();
        ({ entryId } = note);
        noteId = note.id;
      } else {
        const entry = await repo.entries.get(account.id, req.body.entryId!);
        if (!entry) throw entryNotFound();
        entryId = entry.id;
      }
      const token = newToken();
      const id = randomUUID();
      await repo.shares.create({ id, tokenHash: hashToken(token), accountId: account.id, entryId, noteId, createdAt: new Date().toISOString() });
      return reply.code(201).send({ id, url: `${ctx.publicUrl}${keepsakePath(token)}` });
    },
  );

  app.delete(
    API_ROUTES.share,
    {
      schema: {
        operationId: 'deleteShare',
        summary: 'Stop sharing',
        security: bearer,
        params: IdParamsSchema,
        response: { 204: emptyAnswer('The keepsake page stops working at once.'), ...refusals(shareNotFound) },
      },
    },
    async (req, reply) => {
      const account = await requireRunner(ctx, req);
      if (!(await repo.shares.remove(account.id, req.params.id))) {
        throw shareNotFound();
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    API_ROUTES.keepsake,
    {
      schema: {
        operationId: 'getKeepsake',
        summary: 'The keepsake page’s data',
        params: ShareTokenParamsSchema,
        response: { 200: KeepsakeSchema, ...refusals(keepsakeNotFound) },
      },
    },
    async (req): Promise<Keepsake> => {
      const { share, notes } = await sharedNotes(req.params.token);
      const entry = await repo.entries.getById(share.entryId);
      if (!entry) throw keepsakeNotFound();
      return {
        runner: { displayName: entry.displayName },
        race: publicRace(entry.race, ctx.clock.now()),
        notes: notes.map((n) => ({
          id: n.id,
          marker: n.marker,
          markerLabel: markerLabel(n.marker),
          from: n.from,
          durationMs: n.durationMs,
          audioUrl: keepsakeAudioPath(req.params.token, n.id),
        })),
      };
    },
  );

  app.get(
    API_ROUTES.keepsakeAudio,
    {
      schema: {
        operationId: 'getKeepsakeNoteAudio',
        summary: 'A shared note’s audio, while it is shared',
        description: 'Like getNoteAudio: strong ETag, 304, byte ranges (206, 416) and If-Range.',
        params: ShareAudioParamsSchema,
        response: { ...audioAnswers(), ...refusals(keepsakeNotFound, refusal.note_not_found, runnerRefusal.audio_gone) },
      },
    },
    async (req, reply) => {
      const { notes } = await sharedNotes(req.params.token);
      const note = notes.find((n) => n.id === req.params.id);
      if (!note?.convertedKey) throw refusal.note_not_found();
      const audio = await ctx.repo.jobs.convertedAudio(note.id);
      if (!audio) throw refusal.note_not_found();
      return sendAudio(req, reply, ctx.blobs, audio);
    },
  );
};
