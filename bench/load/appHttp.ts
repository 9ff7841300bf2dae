/**
 * The runners' phones' HTTP for the API-server bench (./appFleet-child.ts): node:http on kept-alive
 * connections, asking for compressed answers as an iPhone's URLSession does (br, gzip) and
 * unpacking them. Not fetch (web streams and an AbortSignal per request): thousands of apps run in
 * a few processes beside the server, and the load must cost as little as it can next to what it measures.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export interface AppAnswer {
  status: number;
  /** The answer's JSON (null for an empty body), or its text when it is not JSON. */
  body: unknown;
  /** From the request sent to the whole answer read, in ms. */
  ms: number;
  headers: http.IncomingHttpHeaders;
}

export interface AppRequest {
  method?: string;
  token?: string;
  json?: unknown;
  /** Ends the request (the phone gave up or the bench is pausing). */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Read the body and drop it (audio): only its length counts. */
  discard?: boolean;
}

/** One pool for every app of the process: a held request keeps its connection, as each phone's does. */
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });

function decoded(raw: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'br') return brotliDecompressSync(raw);
  if (encoding === 'gzip') return gunzipSync(raw);
  return raw;
}

function parsed(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `url` is absolute (an audio URL the server signed) or a path on `base`. */
export function appRequest(base: string, url: string, init: AppRequest = {}): Promise<AppAnswer> {
  const target = new URL(url, base);
  const body = init.json === undefined ? undefined : Buffer.from(JSON.stringify(init.json));
  const headers: http.OutgoingHttpHeaders = { 'accept-encoding': 'br, gzip' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': body.length });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method: init.method ?? 'GET', headers, agent, signal: init.signal, timeout: init.timeoutMs ?? 30_000 }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => {
        if (!init.discard) parts.push(d);
      });
      res.on('error', reject);
      res.on('end', () => {
        try {
          const text = init.discard ? '' : decoded(Buffer.concat(parts), res.headers['content-encoding']).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: parsed(text), ms: performance.now() - started, headers: res.headers });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${init.timeoutMs ?? 30_000} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A failed request in a few words, for the error tally. */
export const failureText = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 160) : String(err));

/** A refused answer in a few words. */
export const refusedText = (a: AppAnswer) => `${a.status} ${JSON.stringify(a.body).slice(0, 120)}`;
