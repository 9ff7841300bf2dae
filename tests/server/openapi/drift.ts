/**
 * Holds every answer the server tests receive to the document the same server serves: each
 * Fastify instance built in a test worker gets an onSend hook (through Fastify's
 * `fastify.initialization` diagnostics channel, so no test has to ask for it) that finds the
 * answered operation in /api/openapi.json and checks the status, the headers it marks required,
 * the media type, the body against its schema, and a refusal's code against its `x-error-codes`.
 * What does not match is kept as a violation for drift-setup.ts to fail the test with; the
 * operations answered are kept for the run's list of operations no test exercises.
 */
import { channel } from 'node:diagnostics_channel';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OpenApiDoc, OperationNode, ResponseNode } from '../../../server/routes/runner/openapi.js';

const violations: string[] = [];
const exercised = new Set<string>();
const documented = new Set<string>();

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addFormat('binary', true);
// By the schema's text: every app a test builds serves its own copy of the same document.
const validators = new Map<string, ValidateFunction>();
const validatorOf = (schema: object) => {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) validators.set(key, (validate = ajv.compile(schema)));
  return validate;
};

/** Violations since the last call, emptied. */
export const takeViolations = (): string[] => violations.splice(0);
/** Operation ids answered in this worker's current test file, and every id the documents it saw name. */
export const operationsSeen = () => ({ exercised: [...exercised].sort(), documented: [...documented].sort() });

const isEmpty = (payload: unknown) => payload === null || payload === undefined || payload === '' || (Buffer.isBuffer(payload) && payload.length === 0);

function bodyText(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined; // a stream: its bytes are not read here
}

/** The problems of one answer against its operation, as sentences. */
export function answerProblems(op: OperationNode, req: FastifyRequest, reply: FastifyReply, payload: unknown): string[] {
  const status = reply.statusCode;
  const response: ResponseNode | undefined = op.responses?.[String(status)] ?? op.responses?.[`${String(status)[0]}XX`] ?? op.responses?.default;
  if (!response) return [`status ${status} is not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`];
  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (header.required && !reply.hasHeader(name)) problems.push(`header ${name} is documented as always sent but is missing`);
  }
  // Node sends no body with these, whatever the route handed over.
  if (isEmpty(payload) || req.method === 'HEAD' || status === 204 || status === 304) return problems;
  const mediaType = (String(reply.getHeader('content-type') ?? '').split(';')[0] ?? '').trim().toLowerCase();
  const media = response.content?.[mediaType];
  if (!media) {
    problems.push(`a ${mediaType || 'typeless'} body is not documented (documented: ${Object.keys(response.content ?? {}).join(', ') || 'no body'})`);
    return problems;
  }
  if (!/[/+]json$/.test(mediaType)) return problems;
  const text = bodyText(payload);
  if (text === undefined) return problems;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `the ${mediaType} body is not JSON: ${text.slice(0, 80)}`];
  }
  const validate = validatorOf(media.schema ?? {});
  if (!validate(body)) problems.push(`the body does not match its schema: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 200)}`);
  const codes = response['x-error-codes'] as string[] | undefined;
  const code = (body as { error?: unknown }).error;
  if (status >= 400 && !codes) problems.push(`status ${status} lists no x-error-codes`);
  if (codes && typeof code === 'string' && !codes.includes(code)) problems.push(`error code '${code}' is not in x-error-codes [${codes.join(', ')}]`);
  return problems;
}

function watch(app: FastifyInstance): void {
  let doc: OpenApiDoc | undefined;
  app.addHook('onSend', async (req, reply, payload) => {
    const url = req.routeOptions.url;
    if (!url?.startsWith('/api/') || !('swagger' in app)) return payload;
    if (!doc) {
      doc = (app as unknown as { swagger(): OpenApiDoc }).swagger();
      for (const item of Object.values(doc.paths ?? {})) for (const op of Object.values(item)) if (op?.operationId) documented.add(op.operationId);
    }
    const op = doc.paths?.[url.replace(/:(\w+)/g, '{$1}')]?.[req.method.toLowerCase()];
    // Hidden routes (the document itself) and the HEAD Fastify adds to every GET are not in the contract.
    if (!op) return payload;
    exercised.add(op.operationId ?? `${req.method} ${url}`);
    for (const problem of answerProblems(op, req, reply, payload))
      violations.push(`${op.operationId} (${req.method} ${req.url.split('?')[0]} → ${reply.statusCode}): ${problem}`);
    return payload;
  });
}

/** Starts watching every Fastify instance this worker builds from now on. */
export function watchEveryApp(): void {
  channel('fastify.initialization').subscribe((message) => watch((message as { fastify: FastifyInstance }).fastify));
}
