/** One error path for /api: expected problems keep their status and message, 5xx get a generic sentence and a log line. */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ApiError } from '../../src/shared/api.js';
import { ApiProblem, linkNotFound } from '../http/problem.js';

type ValidationIssue = { instancePath?: string; params?: Record<string, unknown> };

/** A field-specific sentence for a schema failure, since ajv's wording is for developers. */
function problemForValidation(err: FastifyError): ApiProblem {
  const issue = (err.validation?.[0] ?? {}) as ValidationIssue;
  const field = (issue.instancePath ?? '').replace(/^\//, '') || String(issue.params?.missingProperty ?? '');
  switch (field) {
    case 'token':
      return linkNotFound();
    case 'noteId':
      return new ApiProblem(400, 'invalid_note_id', 'The note id must be a UUID made by the recorder.');
    case 'marker':
      return new ApiProblem(400, 'unknown_marker', 'Please pick a mile marker from the list (for example mi-13 or finish).');
    case 'from':
      return new ApiProblem(400, 'invalid_from', 'Please enter your name (1 to 60 characters) so the runner knows who the note is from.');
    default:
      return new ApiProblem(400, 'bad_request', 'The request was not understood. Please reload the page and try again.');
  }
}

export function installApiErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    let problem: ApiProblem | undefined;
    if (err instanceof ApiProblem) problem = err;
    else if (err.validation) problem = problemForValidation(err);
    else if (err.statusCode === 429) {
      problem = new ApiProblem(429, 'rate_limited', 'Too many requests in a short time. Please wait a moment; notes will be sent again.');
    } else if (err.statusCode === 413) {
      problem = new ApiProblem(413, 'too_large', 'This request is too big.');
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      problem = new ApiProblem(err.statusCode, 'bad_request', 'The request was not understood. Please reload the page and try again.');
    }

    if (!problem) {
      req.log.error({ err }, 'request failed');
      const body: ApiError = { error: 'server_error', message: 'Something went wrong on our side. Your note is kept on your phone and will be sent again.' };
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
