/**
 * How a route documents its answers beyond JSON bodies, for /api/openapi.json: the refusals it
 * gives (status and codes read from the factories that make them, so a code is never copied by
 * hand), binary audio, and empty answers whose headers carry the meaning. The document is
 * finished by server/routes/runner/openapi.ts, which lifts `x-error-codes` and `x-required` from
 * these schemas onto the response and its headers.
 */
import { Type, type TSchema } from 'typebox';
import { ApiErrorSchema } from '../../contract/api.js';
import { type ApiProblem, UploadProblem } from './problem.js';

/** A factory of a refusal, as refusals.ts (and the runner's few) write them; called with no values to read its status and code. */
export type RefusalMaker = (...args: never[]) => ApiProblem;

/** The codes an error answer may carry, on its schema until the document lifts them onto the response. */
export const ERROR_CODES = 'x-error-codes';
/** On a header's schema: the header is always sent with this answer. */
export const REQUIRED_HEADER = 'x-required';

/** Headers by name (lower case), each a string schema with a description; `required` ones always come. */
export type HeaderDocs = Record<string, { description: string; required?: boolean }>;

const headerSchemas = (headers: HeaderDocs) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, { description, required }]) => [
      name,
      { type: 'string', description, ...(required ? { [REQUIRED_HEADER]: true } : {}) },
    ]),
  );

const RETRY_AFTER: HeaderDocs = { 'retry-after': { description: 'Seconds to wait before trying again.' } };

/** RFC 9457 problem details the resumable-upload draft defines, with our error and message beside them. */
const UploadProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    error: Type.String(),
    message: Type.String(),
  },
  { additionalProperties: Type.Integer() },
);

const sample = (make: RefusalMaker) => (make as () => ApiProblem)();

/**
 * The error answers of a route, by status: `response: { 200: X, ...refusals(refusal.link_not_found, ...) }`.
 * Each status gets the shared error schema (problem+json for the draft's upload problems) and the
 * list of its codes; 429 and 503 say Retry-After.
 */
export function refusals(...makers: RefusalMaker[]): Record<number, TSchema> {
  const byStatus = new Map<number, ApiProblem[]>();
  for (const problem of makers.map(sample)) byStatus.set(problem.statusCode, [...(byStatus.get(problem.statusCode) ?? []), problem]);
  return Object.fromEntries(
    [...byStatus].map(([status, problems]) => {
      const codes = [...new Set(problems.map((p) => p.code))].sort();
      const plain = problems.filter((p) => !(p instanceof UploadProblem)).map((p) => p.code);
      const drafted = problems.filter((p) => p instanceof UploadProblem).map((p) => p.code);
      const description = `Refused: ${codes.map((c) => `\`${c}\``).join(', ')}. Show \`message\` to the person; branch on \`error\`.`;
      const headers = problems.some((p) => 'retry-after' in p.headers) ? headerSchemas(RETRY_AFTER) : undefined;
      const json = { ...ApiErrorSchema, [ERROR_CODES]: plain.sort() };
      if (drafted.length === 0) return [status, { ...json, description, ...(headers && { headers }) }];
      const problem = { ...UploadProblemSchema, [ERROR_CODES]: drafted.sort() };
      return [
        status,
        {
          description,
          ...(headers && { headers }),
          content: { ...(plain.length > 0 && { 'application/json': { schema: json } }), 'application/problem+json': { schema: problem } },
        },
      ];
    }),
  );
}

/** An answer without a body whose headers say what happened (HEAD, 204, 304, 416). */
export const emptyAnswer = (description: string, headers: HeaderDocs = {}) =>
  Type.Null({ description, ...(Object.keys(headers).length > 0 && { headers: headerSchemas(headers) }) });

/** An answer (a schema, or a response with its content) with the headers it sends. */
export const withHeaders = <T extends object>(answer: T, headers: HeaderDocs) => ({ ...answer, headers: headerSchemas(headers) });

/** A body of bytes in one media type, with its headers. */
export const binaryAnswer = (mediaType: string, description: string, headers: HeaderDocs) => ({
  description,
  headers: headerSchemas(headers),
  content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } },
});

/** What sendAudio (server/runner/audio.ts) answers: the whole file, a range of it, or a range past its end. */
export const audioAnswers = () => {
  const common: HeaderDocs = {
    'accept-ranges': { description: 'Always `bytes`: ask for a range with `Range: bytes=start-end`.', required: true },
    'cache-control': { description: 'The bytes never change for a note id; the signed URL does.', required: true },
    etag: { description: 'Strong validator of the file (its SHA-256), for If-Range and If-None-Match.', required: true },
  };
  return {
    200: binaryAnswer('audio/mp4', 'The whole note (AAC in MP4).', common),
    206: binaryAnswer('audio/mp4', 'The range asked for (one range; multi-range requests get the whole file).', {
      ...common,
      'content-range': { description: '`bytes start-end/size`', required: true },
    }),
    304: emptyAnswer("Not modified: the If-None-Match ETag is the file's.", { etag: common.etag! }),
    416: emptyAnswer('The range starts past the end of the file.', { 'content-range': { description: '`bytes */size`', required: true } }),
  };
};
