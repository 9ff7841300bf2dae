/**
 * The app's client, as the iPhone team generates it: openapi-fetch typed by reference-app/api.d.ts
 * (scripts/gen-api-types.mjs), calling a test app in process through app.inject, or a listening
 * server through fetch. A contract change that breaks the app's calls breaks this type check first.
 */
import type { FastifyInstance } from 'fastify';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../../reference-app/api.js';

export type ApiClient = Client<paths>;

/** A fetch that hands the request to app.inject: no port, the same hooks and answers. */
export const injectFetch =
  (app: FastifyInstance) =>
  async (request: Request): Promise<Response> => {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const res = await app.inject({
      method: request.method as 'GET',
      url: request.url.replace(/^https?:\/\/[^/]+/, ''),
      headers: Object.fromEntries(request.headers),
      ...(body && { payload: body }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const v of [value ?? []].flat()) headers.append(name, String(v));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || request.method === 'HEAD';
    return new Response(empty ? null : res.rawPayload, { status: res.statusCode, headers });
  };

/** The typed client on a test app, with the session's bearer token when given one. */
export function apiClient(app: FastifyInstance, accessToken?: string): ApiClient {
  return createClient<paths>({
    baseUrl: 'http://app.test',
    fetch: injectFetch(app),
    ...(accessToken && { headers: { authorization: `Bearer ${accessToken}` } }),
  });
}
