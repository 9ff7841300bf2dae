/**
 * The one error path for everything under /api. Expected problems (ApiProblem) keep their status
 * and sentence. A malformed path parameter names nothing, so it answers as the missing thing would:
 * a token under /api/r/ is `link_not_found` on every recorder route, an id elsewhere is that
 * resource's 404. The exception is the recorder's note id, which the recorder makes itself: a
 * malformed one is `invalid_note_id` (400) on both /api/r/ note routes. Other schema failures name
 * the field; anything else is a 500 with a generic sentence and a log line, never details.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiError } from '../../src/shared/api.js';
import { MAX_FROM_LENGTH } from '../../src/shared/limits.js';
import {
  ApiProblem, entryNotFound, invalidNoteId, keepsakeNotFound, linkNotFound, noteNotFound, shareNotFound,
} from '../http/problem.js';

type ValidationIssue = { instancePath?: string; params?: Record<string, unknown> };

/** What a malformed path parameter means, by the route's first segment under /api and the parameter's name. */
const MALFORMED_PARAM: Record<string, () => ApiProblem> = {
  'r:token': linkNotFound,
  'r:noteId': invalidNoteId,
  's:token': keepsakeNotFound,
  's:id': noteNotFound,
  'notes:id': noteNotFound,
  'entries:id': entryNotFound,
  'shares:id': shareNotFound,
};

/** Sentences for the fields a person fills in on the recorder; ajv's wording is for developers. */
const FIELD_PROBLEM: Record<string, () => ApiProblem> = {
  marker: () => new ApiProblem(400, 'unknown_marker', 'Please pick a mile marker from the list (for example mi-13 or finish).'),
  from: () => new ApiProblem(400, 'invalid_from', `Please enter your name (1 to ${MAX_FROM_LENGTH} characters) so the runner knows who the note is from.`),
};

const notUnderstood = () => new ApiProblem(400, 'bad_request', 'The request was not understood. Please reload the page and try again.');

const SORRY = 'Something went wrong on our side.';
const NOTE_KEPT = `${SORRY} Your note is kept on your phone and will be sent again.`;
const TRY_AGAIN = `${SORRY} Please try again.`;

/** The route's first segment under /api: `r` for the recorder, `entries`, `notes`, ... */
const familyOf = (req: FastifyRequest) => (req.routeOptions.url ?? '').replace(/^\/api\//, '').split('/')[0];

function problemForValidation(err: FastifyError, req: FastifyRequest): ApiProblem {
  const issue = (err.validation?.[0] ?? {}) as ValidationIssue;
  const field = (issue.instancePath ?? '').replace(/^\//, '').split('/')[0] || String(issue.params?.missingProperty ?? '');
  if (err.validationContext === 'params') {
    const problem = MALFORMED_PARAM[`${familyOf(req)}:${field}`];
    return problem ? problem() : new ApiProblem(404, 'not_found', 'This was not found. The link may be incomplete.');
  }
  const known = FIELD_PROBLEM[field];
  if (known) return known();
  return field ? new ApiProblem(400, 'bad_request', `The field '${field}' is missing or not valid.`) : notUnderstood();
}

/** The problem an error stands for, or undefined when it is ours (a 5xx). */
function problemFor(err: FastifyError, req: FastifyRequest): ApiProblem | undefined {
  if (err instanceof ApiProblem) return err;
  if (err.validation) return problemForValidation(err, req);
  if (err.statusCode === 429) {
    return new ApiProblem(429, 'rate_limited', 'Too many requests in a short time. Please wait a moment; notes will be sent again.');
  }
  if (err.statusCode === 413) return new ApiProblem(413, 'too_large', 'This request is too big.');
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiProblem(err.statusCode, 'bad_request', notUnderstood().message);
  }
  return undefined;
}

export function installApiErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const problem = problemFor(err, req);
    if (!problem) {
      req.log.error({ err }, 'API request failed');
      const body: ApiError = { error: 'server_error', message: familyOf(req) === 'r' ? NOTE_KEPT : TRY_AGAIN };
      return reply.code(500).header('cache-control', 'no-store').send(body);
    }
    if (problem.statusCode === 413) reply.header('connection', 'close');
    const body: ApiError = { error: problem.code, message: problem.message };
    return reply.code(problem.statusCode).headers(problem.headers).header('cache-control', 'no-store').send(body);
  });

  app.setNotFoundHandler((req, reply) => {
    const body: ApiError = { error: 'not_found', message: `There is nothing at ${req.method} ${req.url.split('?')[0]}.` };
    return reply.code(404).header('cache-control', 'no-store').send(body);
  });
}
