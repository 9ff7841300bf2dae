/**
 * /api/openapi.json, the contract the runner's app is generated from: @fastify/swagger collects
 * the typebox schemas every /api route validates and answers with (registered before the routes,
 * it sees them as they are added; the site's routes are left out), and this file finishes it:
 * the refusals every route can meet (server errors, a stopping server, a request that fails its
 * schema, a missing session), public operations marked public, codes and required headers lifted
 * onto each answer, and a version that is the document's own hash.
 */
import { createHash } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import fp from 'fastify-plugin';
import { ERROR_CODES, REQUIRED_HEADER, refusals, type RefusalMaker } from '../../http/contract.js';
import { refusal } from '../../http/refusals.js';
import { DEVICE_COOKIE } from '../../devices/cookie.js';
import { BEARER, notSignedIn } from './context.js';
import { API_PREFIX, API_ROUTES } from '../../../contract/paths.js';

/** The contract's major version: bump it (and the path) only for a change old apps cannot survive. */
const CONTRACT_MAJOR = 1;

/*
 * The document as this file (and the contract tests) walk it: JSON from @fastify/swagger with the
 * fields read here named and typed; every other field passes through as it is (`unknown`).
 */
export interface SchemaNode {
  [field: string]: unknown;
}
export interface MediaNode {
  schema?: SchemaNode;
  [field: string]: unknown;
}
export interface HeaderNode {
  required?: boolean;
  schema?: SchemaNode;
  [field: string]: unknown;
}
/** A documented response, or a route's answer schema before @fastify/swagger makes it one. */
export interface ResponseNode {
  description?: string;
  content?: Record<string, MediaNode>;
  headers?: Record<string, HeaderNode>;
  [field: string]: unknown;
}
export interface OperationNode {
  operationId?: string;
  summary?: string;
  security?: unknown[];
  responses?: Record<string, ResponseNode>;
  [field: string]: unknown;
}
/** A path's operations by method (@fastify/swagger writes nothing else on a path). */
export type PathNode = Partial<Record<string, OperationNode>>;
export interface OpenApiDoc {
  paths?: Record<string, PathNode>;
  info: { version?: string; [field: string]: unknown };
  servers?: unknown;
  [field: string]: unknown;
}
/** A route's schema as Fastify hands it to the transform. */
interface RouteSchema extends FastifySchema {
  response?: Record<string, ResponseNode>;
  [field: string]: unknown;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of a document, with its path and method. */
export function operationsOf(doc: OpenApiDoc): Array<{ path: string; method: string; op: OperationNode }> {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = item[method];
      return op ? [{ path, method, op }] : [];
    }),
  );
}

/** Refusals no route writes because a plugin gives them: every route may meet these. */
function ambientRefusals(schema: RouteSchema, method: string): RefusalMaker[] {
  // Every route reads the database, so any may find it (or the blob store) unreachable, or its disk
  // full (SQLite on a full disk refuses some reads too): server/storage/faults.ts.
  const makers: RefusalMaker[] = [refusal.server_error, refusal.shutting_down, refusal.storage_unavailable, refusal.storage_full];
  // A method Fastify reads a body for refuses a broken one (say JSON's content type with no body) before the route runs.
  if (schema.body || schema.querystring || schema.headers || BODY_METHODS.has(method)) makers.push(refusal.bad_request);
  // A body of a type the route does not parse, or past Fastify's body limit.
  if (schema.body)
    makers.push(
      () => refusal.bad_request(undefined, 415),
      () => refusal.too_large('request'),
    );
  if (JSON.stringify(schema.security) === JSON.stringify(BEARER)) makers.push(notSignedIn);
  return makers;
}

const codesOf = (s: SchemaNode | undefined): string[] => (s?.[ERROR_CODES] as string[] | undefined) ?? [];
const withCodes = <T extends SchemaNode>(s: T, codes: string[]): T => ({ ...s, [ERROR_CODES]: [...new Set([...codesOf(s), ...codes])].sort() });

/** The route's answers with the ambient refusals merged in: their codes join a status the route already documents. */
function withAmbient(schema: RouteSchema, method: string): RouteSchema {
  const response: Record<string, ResponseNode> = { ...(schema.response ?? {}) };
  for (const [status, added] of Object.entries(refusals(...ambientRefusals(schema, method)) as Record<string, ResponseNode>)) {
    const have = response[status];
    if (!have) response[status] = added;
    else if (have.content) {
      const json = have.content['application/json']?.schema ?? added;
      response[status] = { ...have, content: { ...have.content, 'application/json': { schema: withCodes(json, codesOf(added)) } } };
    } else response[status] = { ...withCodes(have, codesOf(added)), ...(added.headers && { headers: { ...added.headers, ...have.headers } }) };
  }
  return { ...schema, response };
}

/** `schema`'s `error` as the enum of its codes: a client generated from the document knows every code it may meet. */
function withErrorEnum(schema: SchemaNode): SchemaNode {
  const codes = codesOf(schema);
  const { [ERROR_CODES]: _codes, ...rest } = schema;
  const properties = rest.properties as Record<string, SchemaNode> | undefined;
  if (codes.length === 0 || !properties?.error) return rest;
  return { ...rest, properties: { ...properties, error: { ...properties.error, enum: codes } } };
}

/**
 * Lifts the codes off the schemas onto the response (with a sentence listing them), writes each
 * schema's codes as its `error`'s enum, and lifts `x-required` onto headers.
 */
function liftResponse(response: ResponseNode): void {
  const schemas = Object.values(response.content ?? {}).flatMap((media) => (media.schema ? [media.schema] : []));
  const codes = [...new Set(schemas.flatMap(codesOf))].sort();
  for (const media of Object.values(response.content ?? {})) if (media.schema) media.schema = withErrorEnum(media.schema);
  if (codes.length > 0) {
    response[ERROR_CODES] = codes;
    response.description = `Refused: ${codes.map((c) => `\`${c}\``).join(', ')}. Show \`message\` to the person; branch on \`error\`.`;
  }
  for (const header of Object.values(response.headers ?? {})) {
    if (header.schema?.[REQUIRED_HEADER]) header.required = true;
    delete header.schema?.[REQUIRED_HEADER];
  }
}

/** The document's version: the major, then the hash of everything but the version and the servers. */
export function contractVersion(doc: OpenApiDoc): string {
  const { info, servers: _servers, ...rest } = doc;
  const hash = createHash('sha256')
    .update(JSON.stringify({ ...rest, info: { ...info, version: undefined } }))
    .digest('hex');
  return `${CONTRACT_MAJOR}.0.0+${hash.slice(0, 12)}`;
}

function finish(doc: OpenApiDoc): OpenApiDoc {
  for (const { path, method, op } of operationsOf(doc)) {
    // No security named means none needed: say so, or generators assume the global default.
    op.security ??= [];
    // @fastify/swagger suffixes a HEAD route's id in case a GET shares it; ours stand alone.
    if (method === 'head' && !doc.paths?.[path]?.get) op.operationId = op.operationId?.replace(/-head$/, '');
    for (const response of Object.values(op.responses ?? {})) liftResponse(response);
  }
  doc.info.version = contractVersion(doc);
  return doc;
}

export const openApi = fp<{ publicUrl: string }>(async (app, { publicUrl }) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'MileNotes API',
        version: `${CONTRACT_MAJOR}`,
        description:
          'The runner’s iPhone app (bearer sessions from Sign in with Apple), the recorder at /r/:token and the keepsake page at /s/:token. ' +
          'docs/app-contract.md walks through it. Every refusal is `{ error, message }`: `error` a stable code (listed per answer in `x-error-codes` and as the enum of its `error`), `message` a sentence for a person.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          // Set by GET /api/r/:token (server/devices/cookie.ts); the home screen's list reads it.
          deviceCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: DEVICE_COOKIE,
            description:
              'The phone’s device cookie (HttpOnly; `__Host-`, so only this host sets it): a bearer credential for the recorder links opened with it. ' +
              'Only a value this server issued names a phone; any other is ignored. Over plain HTTP to localhost it is `mn_device_local`.',
          },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const s = (schema ?? {}) as RouteSchema;
      const method = [route.method].flat()[0] ?? 'GET';
      return { schema: !url.startsWith(`${API_PREFIX}/`) ? { ...s, hide: true } : s.hide ? s : withAmbient(s, method), url };
    },
    transformObject: (documentObject) => {
      const doc = structuredClone((documentObject as Extract<typeof documentObject, { openapiObject: unknown }>).openapiObject);
      finish(doc as OpenApiDoc);
      return doc;
    },
  });
  app.get(`${API_PREFIX}${API_ROUTES.openapi}`, { schema: { hide: true } }, async () => app.swagger());
});
