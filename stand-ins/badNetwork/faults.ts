/**
 * The bad network's faults mode: a proxy on 127.0.0.1 in front of the test server that fails on command: the whole server
 * unreachable, note uploads answered 503, or an upload cut after some bytes. Engines without
 * CDP cannot fake a bad network themselves, so the bad network lives here, for every engine alike.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { openFront, type Target } from './front.js';

const NOTE_UPLOAD = /^\/api\/r\/[^/]+\/(notes|uploads)\//;
/** Where a note is sent whole (the resumable upload's creation); failUploads' faults meet only these. */
const NOTE_CREATION = /^\/api\/r\/[^/]+\/notes\//;

export type UploadFault = { kind: 'status'; status: number } | { kind: 'cut'; afterBytes: number };

export interface UploadSeen {
  method: string;
  path: string;
  /** What the proxy did: passed it on, answered with a status, or cut it. */
  fate: 'passed' | 'status' | 'cut';
  bodyBytes: number;
  /** Body bytes passed on to the server (all of them unless cut). */
  forwardedBytes: number;
  status?: number;
}

export interface FaultProxy {
  url: string;
  /** Every note upload (PUT/POST under /api/r/:token/notes/, PATCH/HEAD under .../uploads/) in arrival order. */
  readonly uploads: UploadSeen[];
  /**
   * Holds every request whose path matches until release(), page's and worker's alike: a file on
   * its way for as long as a scenario needs (React's, while the first screen records without it).
   */
  hold(path: RegExp): { /** Requests held so far, released or not. */ held(): number; release(): void };
  /** Refuses new connections and cuts open ones: the server is unreachable. */
  down(): void;
  up(): void;
  /** The next note creations (PUT/POST under /notes/) meet these faults, one each, in order. */
  failUploads(...faults: UploadFault[]): void;
  /**
   * From now on every connection dies once it has carried `afterBytes` of upload bodies, as a
   * venue link that never stays up for a whole note does.
   */
  cutEveryConnection(afterBytes: number): void;
  /** Connections cut so far. */
  cuts(): number;
  /** What the browser asked for lately and what became of it, unanswered requests included: printed when a test fails. */
  traffic(): string[];
  /** The requests the server has not answered yet, as traffic() says them. */
  owed(): string[];
  close(): Promise<void>;
}

export async function startFaultNetwork(target: Target): Promise<FaultProxy> {
  const uploads: UploadSeen[] = [];
  const faults: UploadFault[] = [];
  let isDown = false;
  let cutEvery: number | undefined;
  let cuts = 0;
  /** Upload body bytes each connection has carried, for cutEveryConnection. */
  const carried = new WeakMap<Socket, number>();
  const started = Date.now();
  /** The last requests, oldest first: what came in, when, and how it ended. */
  const recent: Array<{ line: string; at: number; status?: number; endedAt?: number; closedEarly?: boolean }> = [];

  const holds: Array<{ path: RegExp; released: boolean; count: number; waiting: Array<() => void> }> = [];

  const server = http.createServer((req, res) => {
    const held = holds.find((h) => !h.released && h.path.test(req.url ?? '/'));
    if (!held) return serve(req, res);
    held.count++;
    held.waiting.push(() => serve(req, res));
  });

  function serve(req: http.IncomingMessage, res: http.ServerResponse) {
    const path = req.url ?? '/';
    const entry: (typeof recent)[number] = { line: `${req.method} ${path}`, at: Date.now() - started };
    recent.push(entry);
    if (recent.length > 60) recent.shift();
    res.on('finish', () => Object.assign(entry, { status: res.statusCode, endedAt: Date.now() - started }));
    res.on('close', () => void (entry.endedAt === undefined && Object.assign(entry, { closedEarly: true, endedAt: Date.now() - started })));
    const isUpload = NOTE_UPLOAD.test(path) && req.method !== 'GET';
    const seen: UploadSeen | undefined = isUpload ? { method: req.method!, path, fate: 'passed', bodyBytes: 0, forwardedBytes: 0 } : undefined;
    if (seen) uploads.push(seen);
    const listed = isUpload && NOTE_CREATION.test(path) ? faults.shift() : undefined;
    // A fault listed by failUploads cuts the request even when its body is shorter; the link's budget only past it.
    const budget = isUpload && !listed && cutEvery !== undefined ? cutEvery - (carried.get(req.socket) ?? 0) : undefined;
    const fault: UploadFault | undefined = listed ?? (budget !== undefined ? { kind: 'cut', afterBytes: budget } : undefined);
    req.on('data', (chunk: Buffer) => seen && (seen.bodyBytes += chunk.length));

    if (fault?.kind === 'status') {
      seen!.fate = 'status';
      seen!.status = fault.status;
      req.resume();
      req.on('end', () => {
        const body = JSON.stringify({ error: 'unavailable', message: 'The service is unavailable.' });
        res.writeHead(fault.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      });
      return;
    }
    const upstream = http.request({ host: target.host, port: target.port, method: req.method, path, headers: req.headers });
    upstream.on('error', () => req.socket.destroy());
    upstream.on('response', (answer) => {
      if (seen) seen.status = answer.statusCode;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    if (fault?.kind === 'cut') {
      if (listed) seen!.fate = 'cut';
      let forwarded = 0;
      const socket = req.socket;
      req.on('data', (chunk: Buffer) => {
        const room = fault.afterBytes - forwarded;
        if (room <= 0) return;
        const part = chunk.subarray(0, room);
        forwarded += part.length;
        seen!.forwardedBytes += part.length;
        carried.set(socket, (carried.get(socket) ?? 0) + part.length);
        // The link dies here: the server gets what went through and then a short body, the browser a dropped connection.
        if (forwarded >= fault.afterBytes) {
          cuts++;
          seen!.fate = 'cut';
          upstream.write(part, () => upstream.destroy());
          socket.destroy();
        } else upstream.write(part);
      });
      // A request smaller than the budget passes whole; the connection keeps what is left of it.
      req.on('end', () => (listed ? upstream.destroy() : upstream.end()));
      return;
    }
    req.on('data', (chunk: Buffer) => seen && (seen.forwardedBytes += chunk.length));
    req.pipe(upstream);
  }
  // Browsers keep connections: a 'down' proxy must cut those too, and close() must not wait on them.
  server.keepAliveTimeout = 2_000;
  const front = await openFront(server, { refuse: () => isDown });

  return {
    url: front.url,
    uploads,
    hold(path) {
      const held = { path, released: false, count: 0, waiting: [] as Array<() => void> };
      holds.push(held);
      return {
        held: () => held.count,
        release() {
          held.released = true;
          for (const pass of held.waiting.splice(0)) pass();
        },
      };
    },
    down() {
      isDown = true;
      front.cutAll();
    },
    up() {
      isDown = false;
    },
    failUploads(...next) {
      faults.push(...next);
    },
    cutEveryConnection(afterBytes) {
      cutEvery = afterBytes;
    },
    cuts: () => cuts,
    traffic: () =>
      recent.map(
        ({ line, at, status, endedAt, closedEarly }) =>
          `${at} ms ${line}: ${endedAt === undefined ? 'still open' : closedEarly ? `closed unanswered at ${endedAt} ms` : `${status} at ${endedAt} ms`}`,
      ),
    owed: () => recent.filter((r) => r.endedAt === undefined).map(({ line, at }) => `${at} ms ${line}: still open`),
    close: front.close,
  };
}
