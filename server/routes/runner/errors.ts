/** The runner API's one error path: ApiProblem keeps its status and sentence, schema failures name the field, 5xx say nothing more. */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ApiError } from '../../../src/shared/api.js';
import { ApiProblem } from '../../http/problem.js';

type Issue = { instancePath?: string; params?: Record<string, unknown> };

function validationProblem(err: FastifyError): ApiProblem {
  const issue = (err.validation?.[0] ?? {}) as Issue;
  const field = (issue.instancePath ?? '').replace(/^\//, '') || String(issue.params?.missingProperty ?? '');
  // A malformed id or token is a thing that does not exist, not a mistake the person can fix.
  if (err.validationContext === 'params') return new ApiProblem(404, 'not_found', 'This was not found. The link may be incomplete.');
  return new ApiProblem(400, 'bad_request', field ? `The field '${field}' is missing or not valid.` : 'The request was not understood.');
}

export function installRunnerErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    let problem: ApiProblem | undefined;
    if (err instanceof ApiProblem) problem = err;
    else if (err.validation) problem = validationProblem(err);
    else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      problem = new ApiProblem(err.statusCode, 'bad_request', 'The request was not understood.');
    }
    if (!problem) {
      req.log.error({ err }, 'runner API request failed');
      const body: ApiError = { error: 'server_error', message: 'Something went wrong on our side. Please try again.' };
      return reply.code(500).header('cache-control', 'no-store').send(body);
    }
    const body: ApiError = { error: problem.code, message: problem.message };
    return reply.code(problem.statusCode).headers(problem.headers).header('cache-control', 'no-store').send(body);
  });
}
