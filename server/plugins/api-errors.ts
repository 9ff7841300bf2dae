/**
 * The one error path for everything under /api. Expected problems (ApiProblem) keep their status
 * and sentence (../http/refusals.ts writes the recorder's); the resumable-upload draft's problems
 * (UploadProblem) go out as problem+json with the same error and message. A malformed path parameter names nothing, so it answers as the missing thing would:
 * a token under /api/r/ is `link_not_found` on every recorder route, an id elsewhere is that
 * resource's 404. The exception is the recorder's note id, which the recorder makes itself: a
 * malformed one is `invalid_note_id` (400) on both /api/r/ note routes. Other schema failures name
 * the field. A storage fault (the database or blob store unreachable, a full disk) is a 503 with
 * Retry-After and its own code (../http/storage-faults.ts), logged at warn: not our bug. Anything
 * else is a 500 with a generic sentence and a log line, never details.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { isRefusalStatus } from '../../contract/refusals.js';
import { ApiProblem, deviceLinkNotFound, entryNotFound, keepsakeNotFound, shareNotFound, UploadProblem } from '../http/problem.js';
import { refusal } from '../http/refusals.js';
import { storageFaultAnswer } from '../http/storage-faults.js';

type ValidationIssue = { instancePath?: string; params?: Record<string, unknown> };

/** What a malformed path parameter means, by the route's first segment under /api and the parameter's name. */
const MALFORMED_PARAM: Record<string, () => ApiProblem> = {
  'r:token': refusal.link_not_found,
  'r:noteId': refusal.invalid_note_id,
  's:token': keepsakeNotFound,
  's:id': refusal.note_not_found,
  'notes:id': refusal.note_not_found,
  'entries:id': entryNotFound,
  'shares:id': shareNotFound,
  'device:linkId': deviceLinkNotFound,
};

/** Sentences for the fields a person fills in on the recorder; ajv's wording is for developers. */
const FIELD_PROBLEM: Record<string, () => ApiProblem> = {
  marker: () => refusal.unknown_marker(),
  from: refusal.invalid_from,
};

/** The route's first segment under /api: `r` for the recorder, `entries`, `notes`, ... */
const familyOf = (req: FastifyRequest) => (req.routeOptions.url ?? '').replace(/^\/api\//, '').split('/')[0];

function problemForValidation(err: FastifyError, req: FastifyRequest): ApiProblem {
  const issue = (err.validation?.[0] ?? {}) as ValidationIssue;
  const field = (issue.instancePath ?? '').replace(/^\//, '').split('/')[0] || String(issue.params?.missingProperty ?? '');
  if (err.validationContext === 'params') {
    const problem = MALFORMED_PARAM[`${familyOf(req)}:${field}`];
    return problem ? problem() : refusal.not_found();
  }
  const known = FIELD_PROBLEM[field];
  if (known) return known();
  return refusal.bad_request(field || undefined);
}

/** The problem an error stands for, or undefined when it is ours (a 5xx). */
function problemFor(err: FastifyError, req: FastifyRequest): ApiProblem | undefined {
  if (err instanceof ApiProblem) return err;
  if (err.validation) return problemForValidation(err, req);
  if (err.statusCode === 429) return refusal.rate_limited();
  if (err.statusCode === 413) return refusal.too_large('request');
  // Fastify's own refusals of a request keep their status; the catalogue lists each one they give.
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)
    return refusal.bad_request(undefined, isRefusalStatus('bad_request', err.statusCode) ? err.statusCode : 400);
  return undefined;
}

export function installApiErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const known = problemFor(err, req);
    const fault = known ? undefined : storageFaultAnswer(err, req, familyOf(req) === 'r');
    if (fault) req.log.warn({ err }, `API request met a storage fault: answered ${fault.code}`);
    const problem = known ?? fault;
    if (!problem) {
      req.log.error({ err }, 'API request failed');
      const ours = refusal.server_error(familyOf(req) === 'r');
      return reply.code(ours.statusCode).header('cache-control', 'no-store').send(ours.body());
    }
    reply.code(problem.statusCode).headers(problem.headers).header('cache-control', 'no-store');
    if (problem.statusCode === 413) reply.header('connection', 'close');
    // The resumable-upload draft's problems keep their RFC 9457 shape (type, title, members).
    if (problem instanceof UploadProblem) return reply.type('application/problem+json').send(problem.body());
    return reply.send(problem.body());
  });

  app.setNotFoundHandler((req, reply) => {
    const problem = refusal.not_found(`${req.method} ${req.url.split('?')[0]}`);
    return reply.code(problem.statusCode).header('cache-control', 'no-store').send(problem.body());
  });
}
