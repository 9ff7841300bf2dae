/** The race catalogue as the runner's app reads it: every race with its clock and markers, and each race's course. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CourseLineSchema, RaceListSchema, RaceParamsSchema } from '../../../contract/runnerApi.js';
import { API_ROUTES } from '../../../contract/paths.js';
import { emptyAnswer, refusals, withHeaders, type HeaderDocs } from '../../http/contract.js';
import { noneMatch } from '../../http/conditional.js';
import { raceRefusal } from '../../http/refusals.js';
import { publicRace } from '../../races/public-race.js';
import type { RunnerContext } from './context.js';

/** The app checks its cached copy before race day: it may keep it, and must ask again before using it. */
const COURSE_CACHE = 'public, no-cache';

const COURSE_HEADERS: HeaderDocs = {
  etag: { description: 'Strong validator of the course: send it as If-None-Match to get 304 while the course is unchanged.', required: true },
  'cache-control': { description: `\`${COURSE_CACHE}\`: keep it, but ask (If-None-Match) before race day.`, required: true },
};

export const raceRoutes: FastifyPluginAsyncTypebox<{ ctx: RunnerContext }> = async (app, { ctx }) => {
  const { repo } = ctx;

  app.get(
    API_ROUTES.races,
    {
      schema: {
        operationId: 'listRaces',
        summary: 'Races, upcoming, live and past, with their markers (placed where a course exists)',
        response: { 200: RaceListSchema },
      },
    },
    async () => {
      const now = ctx.clock.now();
      return { races: (await repo.races.list()).map((race) => publicRace(race, now)) };
    },
  );

  app.get(
    API_ROUTES.raceCourse,
    {
      schema: {
        operationId: 'getRaceCourse',
        summary: 'A race’s course as a GeoJSON LineString (at most 2,000 points, every marker a vertex), with a strong ETag',
        params: RaceParamsSchema,
        response: {
          200: withHeaders(
            { description: 'The course (GeoJSON LineString, [lon, lat]).', content: { 'application/geo+json': { schema: CourseLineSchema } } },
            COURSE_HEADERS,
          ),
          304: emptyAnswer('Not modified: If-None-Match names this course.', COURSE_HEADERS),
          ...refusals(raceRefusal.race_not_found, raceRefusal.no_course),
        },
      },
    },
    async (req, reply) => {
      const course = await repo.races.appCourse(req.params.id);
      if (!course) {
        const race = await repo.races.get(req.params.id);
        throw race ? raceRefusal.no_course(race) : raceRefusal.race_not_found();
      }
      reply.header('etag', course.etag).header('cache-control', COURSE_CACHE);
      if (noneMatch(req.headers['if-none-match'], course.etag)) return reply.code(304).send(null);
      // Sent as stored (the ETag is of these bytes): a string is not serialised again.
      return reply.type('application/geo+json').send(course.json as never);
    },
  );
};
