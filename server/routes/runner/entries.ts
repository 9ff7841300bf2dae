/** The runner's entries and their links for friends (races: ./races.ts; the notes that arrived: ./entry-notes.ts). */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { raceWhen } from '../../../contract/raceClock.js';
import { EntryListSchema, EntrySchema, IdParamsSchema, LinkSchema, NewEntrySchema, type Entry as EntryBody } from '../../../contract/runnerApi.js';
import { API_ROUTES, recorderPath } from '../../../contract/paths.js';
import { emptyAnswer, refusals } from '../../http/contract.js';
import { entryNotFound } from '../../http/problem.js';
import { raceRefusal } from '../../http/refusals.js';
import { entryRefusal } from '../../http/session-refusals.js';
import { linkIdOf, newToken } from '../../links.js';
import { publicRace } from '../../races/public-race.js';
import { cleanRunnerName } from '../../intake/sanitize.js';
import type { Entry } from '../../db/repository.js';
import { requireRunner, BEARER, type RunnerContext } from './context.js';

const bearer = BEARER;

const { unknown_race: unknownRace, invalid_display_name: invalidDisplayName } = entryRefusal;

export const entryRoutes: FastifyPluginAsyncTypebox<{ ctx: RunnerContext }> = async (app, { ctx }) => {
  const { repo } = ctx;

  const entryBody = (e: Entry, token?: string): EntryBody => ({
    id: e.id,
    race: publicRace(e.race, ctx.clock.now()),
    displayName: e.displayName,
    createdAt: e.createdAt,
    linkActive: e.linkActive,
    linkPhones: e.linkPhones,
    ...(token ? { link: { token, url: `${ctx.publicUrl}${recorderPath(token)}` } } : {}),
  });

  async function ownEntry(accountId: string, id: string): Promise<Entry> {
    const entry = await repo.entries.get(accountId, id);
    if (!entry) throw entryNotFound();
    return entry;
  }

  app.get(
    API_ROUTES.entries,
    { schema: { operationId: 'listEntries', summary: 'The runner’s entries', security: bearer, response: { 200: EntryListSchema } } },
    async (req) => {
      const account = await requireRunner(ctx, req);
      return { entries: (await repo.entries.list(account.id)).map((e) => entryBody(e)) };
    },
  );

  app.post(
    API_ROUTES.entries,
    {
      schema: {
        operationId: 'createEntry',
        summary: 'Enter a race; the answer carries the link for friends (shown once)',
        security: bearer,
        body: NewEntrySchema,
        response: { 201: EntrySchema, ...refusals(unknownRace, invalidDisplayName, raceRefusal.race_over) },
      },
    },
    async (req, reply) => {
      const account = await requireRunner(ctx, req);
      const race = await repo.races.get(req.body.raceId);
      if (!race) throw unknownRace();
      // A note for a race that is over still reaches the keepsake, but a new entry could never be run.
      if (raceWhen(race.startsAt, ctx.clock.now()) === 'past') throw raceRefusal.race_over(race);
      const displayName = cleanRunnerName(req.body.displayName);
      if (!displayName) throw invalidDisplayName();
      const token = newToken();
      const entry = await repo.entries.create({
        id: randomUUID(),
        accountId: account.id,
        raceId: race.id,
        displayName,
        linkId: linkIdOf(token),
        createdAt: new Date().toISOString(),
      });
      return reply.code(201).send(entryBody(entry, token));
    },
  );

  app.post(
    API_ROUTES.entryLink,
    {
      schema: {
        operationId: 'replaceEntryLink',
        summary: 'Issue a new link for friends and revoke the old one: the phones that followed it follow it no more (linkPhones starts again at 0)',
        security: bearer,
        params: IdParamsSchema,
        response: { 200: LinkSchema, ...refusals(entryNotFound) },
      },
    },
    async (req) => {
      const entry = await ownEntry((await requireRunner(ctx, req)).id, req.params.id);
      const token = newToken();
      await repo.entries.replaceLink(entry, linkIdOf(token), new Date().toISOString());
      return { token, url: `${ctx.publicUrl}${recorderPath(token)}` };
    },
  );

  app.delete(
    API_ROUTES.entryLink,
    {
      schema: {
        operationId: 'revokeEntryLink',
        summary: 'Revoke the link for friends',
        security: bearer,
        params: IdParamsSchema,
        response: { 204: emptyAnswer('The link stops working at once; its notes stay.'), ...refusals(entryNotFound) },
      },
    },
    async (req, reply) => {
      const entry = await ownEntry((await requireRunner(ctx, req)).id, req.params.id);
      await repo.entries.revokeLinks(entry, new Date().toISOString());
      return reply.code(204).send(null);
    },
  );
};
