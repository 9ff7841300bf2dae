/**
 * Race-day progress, shared by the runner's choice: turning sharing on or off, and the
 * positions the runner's phone sends while the race is live. What friends then see is in the
 * recorder's link answer (../recorder.ts), by way of ../../races/tracking.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EntrySharingSchema, MAX_POSITIONS_BODY_BYTES, PositionBatchSchema, PositionsReceiptSchema, UpdateEntrySchema } from '../../../contract/progressApi.js';
import { raceWhen } from '../../../contract/raceClock.js';
import { IdParamsSchema } from '../../../contract/runnerApi.js';
import { API_ROUTES } from '../../../contract/paths.js';
import { refusals } from '../../http/contract.js';
import { entryNotFound } from '../../http/problem.js';
import { appRefusal, raceRefusal } from '../../http/refusals.js';
import { rescheduleNotes } from '../../races/note-deadlines.js';
import { recordPositions } from '../../races/tracking.js';
import { BEARER, requireRunner, type RunnerContext } from './context.js';

export const progressRoutes: FastifyPluginAsyncTypebox<{ ctx: RunnerContext }> = async (app, { ctx }) => {
  const { repo } = ctx;

  /** Only the account's own entry: another runner's answers as a missing one. */
  async function ownEntry(accountId: string, id: string) {
    const entry = await repo.entries.get(accountId, id);
    if (!entry) throw entryNotFound();
    return entry;
  }

  app.patch(
    API_ROUTES.entry,
    {
      schema: {
        operationId: 'updateEntry',
        summary: 'Turn sharing progress with the link’s holders on or off (off by default), or give the finish time the runner expects',
        security: BEARER,
        params: IdParamsSchema,
        body: UpdateEntrySchema,
        response: { 200: EntrySharingSchema, ...refusals(entryNotFound) },
      },
    },
    async (req) => {
      const entry = await ownEntry((await requireRunner(ctx, req)).id, req.params.id);
      const { shareProgress, expectedFinishSeconds } = req.body;
      if (shareProgress !== undefined) await repo.progress.setSharing(entry.id, shareProgress);
      if (expectedFinishSeconds !== undefined) await repo.progress.setExpectedFinish(entry.id, expectedFinishSeconds);
      // Both change when the runner is expected at each marker: the waiting notes' deadlines follow.
      const schedule = await rescheduleNotes(repo, entry.id);
      const sharing = shareProgress ?? (await repo.progress.ofEntry(entry.id)).sharing;
      const finish = schedule?.expectedFinishSeconds;
      return { id: entry.id, shareProgress: sharing, ...(typeof finish === 'number' && { expectedFinishSeconds: finish }) };
    },
  );

  app.post(
    API_ROUTES.entryPositions,
    {
      bodyLimit: MAX_POSITIONS_BODY_BYTES,
      schema: {
        operationId: 'postPositions',
        summary: 'Positions the phone took during the race (a batch, any order); each placed on the course or ignored, with why',
        security: BEARER,
        params: IdParamsSchema,
        body: PositionBatchSchema,
        response: {
          200: PositionsReceiptSchema,
          ...refusals(entryNotFound, appRefusal.race_not_live, appRefusal.progress_not_shared, raceRefusal.no_course),
        },
      },
    },
    async (req) => {
      // One statement for what the batch starts from; the course itself is this process's copy while its ETag holds.
      const start = await repo.progress.batchStart((await requireRunner(ctx, req)).id, req.params.id);
      if (!start) throw entryNotFound();
      const { race, progress } = start;
      const now = ctx.clock.now();
      const when = raceWhen(race.startsAt, now);
      if (when !== 'live') throw appRefusal.race_not_live(race.name, when);
      if (!progress.sharing) throw appRefusal.progress_not_shared();
      const course = start.courseEtag === null ? undefined : await repo.races.course(race.id, start.courseEtag);
      if (!course) throw raceRefusal.no_course(race);
      return recordPositions(repo, ctx.runnerMoved, req.params.id, race, course, req.body, now, progress);
    },
  );
};
