/**
 * The bad network's venue mode: an HTTP proxy on 127.0.0.1 in front of the server that plays a scripted
 * schedule. Until start() and after the schedule ends it passes traffic through untouched; during
 * the schedule it refuses connections in offline windows, fails a share of requests (a 502, or the
 * connection cut mid-request or before the answer), and squeezes everything through one slow link
 * with added latency. A short-lived schedule also cuts every connection a few seconds after it
 * opens, as a crowded cell does. Every request is logged with its fate and the bytes it moved.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { seededRandom } from '../seededRandom.js';
import { openFront, type Target } from './front.js';

export interface VenueSchedule {
  /** How long the bad network lasts from start(); the link is good after it. */
  durationMs: number;
  /** Windows (ms from start) in which every connection is refused and open ones are cut. */
  offline: Array<{ fromMs: number; toMs: number }>;
  /** Share of requests outside offline windows that fail: a third each 502, cut mid-request, cut before the answer. */
  failureShare: number;
  /** The slow link's speed, each way, shared by all connections. */
  bitsPerSecond: number;
  /** Added round-trip time, half before the request goes on and half before the answer comes back. */
  latencyMs: number;
  /** When set, every connection opened during the schedule is cut after a random lifetime in this range. */
  connectionLifetimeMs?: { min: number; max: number };
  seed: number;
}

export type Fate = 'passed' | 'ok' | 'offline' | 'bad-gateway' | 'cut-request' | 'cut-answer';

export interface ProxyLogEntry {
  /** ms since start() when the request arrived (negative before it). */
  atMs: number;
  /** ms since start() when the client received the whole answer, if it did. */
  doneMs?: number;
  method: string;
  path: string;
  fate: Fate;
  status?: number;
  /** Request body bytes read from the client. */
  bodyBytesUp: number;
  /** Request line and header bytes from the client. */
  headerBytesUp: number;
  bytesDown: number;
  /** Where this body starts in the note: a PATCH's Upload-Offset, 0 for a PUT or POST. */
  offset: number;
  /** Bytes of this note the server held when the request arrived (BodyHooks.heldBefore); undefined when not asked. */
  heldBefore?: number;
  /** The longest silence (ms) between body bytes passed on to the server: what its idle cut sees. */
  maxSilentMs: number;
}

/** What the bench tells the proxy about the server behind it, to account for every byte. */
export interface ProxyHooks {
  /** How many bytes of the note a body request names the server holds right now (Infinity when the note is stored). */
  heldBefore?(method: string, path: string): Promise<number | undefined>;
}

const BODY_METHODS = new Set(['PUT', 'POST', 'PATCH']);

export interface ChaosProxy {
  url: string;
  /** Starts the schedule's clock. */
  start(): void;
  /** ms since start(). */
  now(): number;
  readonly schedule: VenueSchedule;
  readonly log: ProxyLogEntry[];
  /** Connections refused in offline windows (they never became a logged request). */
  refused(): number;
  /** Connections cut because their lifetime ran out (short-lived schedules). */
  cutByLifetime(): number;
  close(): Promise<void>;
}

/** Deterministic choices, so the same seed plays the same schedule for every system. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One direction of the slow link: bytes queue behind each other, whichever connection sent them. */
class Link {
  private nextFreeAt = 0;
  constructor(private readonly bytesPerMs: number) {}
  async take(bytes: number): Promise<void> {
    const now = performance.now();
    const start = Math.max(now, this.nextFreeAt);
    this.nextFreeAt = start + bytes / this.bytesPerMs;
    const wait = this.nextFreeAt - now;
    if (wait > 1) await sleep(wait);
  }
}

const PIECE = 1024;

/** Copies source to dest through the link (when slow() says so), stopping after `limit` bytes. */
async function pump(
  source: Readable,
  dest: Writable | undefined,
  link: Link,
  slow: () => boolean,
  count: (n: number) => void,
  limit = Infinity,
  onWrite?: () => void,
): Promise<boolean> {
  let sent = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i += PIECE) {
      let piece = chunk.subarray(i, i + PIECE);
      if (sent + piece.length > limit) piece = piece.subarray(0, limit - sent);
      if (slow()) await link.take(piece.length);
      count(piece.length);
      sent += piece.length;
      onWrite?.();
      if (dest && !dest.write(piece)) await once(dest, 'drain');
      if (sent >= limit) return false;
    }
  }
  return true;
}

function headerBytes(req: http.IncomingMessage): number {
  let n = `${req.method} ${req.url} HTTP/1.1\r\n`.length + 2;
  for (let i = 0; i < req.rawHeaders.length; i += 2) n += req.rawHeaders[i]!.length + req.rawHeaders[i + 1]!.length + 4;
  return n;
}

export async function startVenueNetwork(target: Target, schedule: VenueSchedule, hooks: ProxyHooks = {}): Promise<ChaosProxy> {
  const random = seededRandom(schedule.seed);
  // Lifetimes draw from their own sequence, so they do not shift the request fates.
  const lifetimeRandom = seededRandom(schedule.seed ^ 0x5bd1e995);
  const bytesPerMs = schedule.bitsPerSecond / 8 / 1000;
  const up = new Link(bytesPerMs);
  const down = new Link(bytesPerMs);
  const log: ProxyLogEntry[] = [];
  const timers: NodeJS.Timeout[] = [];
  let startedAt: number | undefined;
  let refused = 0;
  let cutByLifetime = 0;

  const now = () => (startedAt === undefined ? -1 : performance.now() - startedAt);
  const inSchedule = () => startedAt !== undefined && now() < schedule.durationMs;
  const offlineNow = () => inSchedule() && schedule.offline.some((w) => now() >= w.fromMs && now() < w.toMs);

  const server = http.createServer(async (req, res) => {
    const entry: ProxyLogEntry = {
      atMs: now(),
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      fate: 'passed',
      bodyBytesUp: 0,
      headerBytesUp: headerBytes(req),
      bytesDown: 0,
      offset: Number(req.headers['upload-offset'] ?? 0) || 0,
      maxSilentMs: 0,
    };
    log.push(entry);
    // Asked at once, beside the latency: what the server held when the phone chose to send this.
    const held =
      BODY_METHODS.has(entry.method) && hooks.heldBefore
        ? hooks.heldBefore(entry.method, entry.path).then(
            (h) => void (entry.heldBefore = h),
            () => undefined,
          )
        : undefined;
    const chaos = inSchedule();
    if (chaos) {
      const r = random();
      const third = schedule.failureShare / 3;
      entry.fate = r < third ? 'bad-gateway' : r < 2 * third ? 'cut-request' : r < 3 * third ? 'cut-answer' : 'ok';
    }
    const slow = () => chaos && inSchedule();
    const cut = () => req.socket?.destroy();
    try {
      if (offlineNow()) {
        entry.fate = 'offline';
        return cut();
      }
      if (slow()) await sleep(schedule.latencyMs / 2);
      await held;
      if (entry.fate === 'bad-gateway') {
        // An overloaded gateway: it takes the whole body, then fails.
        await pump(req, undefined, up, slow, (n) => (entry.bodyBytesUp += n));
        if (slow()) await sleep(schedule.latencyMs / 2);
        entry.status = 502;
        const body = '<html><body><h1>502 Bad Gateway</h1></body></html>';
        res.on('finish', () => (entry.doneMs = now()));
        res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(body) }).end(body);
        entry.bytesDown += body.length + 100;
        return;
      }
      const upstream = http.request({ host: target.host, port: target.port, method: req.method, path: req.url, headers: req.headers });
      upstream.on('error', () => {
        if (!res.headersSent && !res.destroyed) res.writeHead(502).end();
      });
      res.on('close', () => upstream.destroy());
      const answer = new Promise<http.IncomingMessage>((resolve) => upstream.on('response', resolve));
      const declared = Number(req.headers['content-length'] ?? 0);
      const limit = entry.fate === 'cut-request' ? Math.floor(declared / 2) : Infinity;
      let lastWrite = performance.now();
      const wrote = () => {
        const at = performance.now();
        entry.maxSilentMs = Math.max(entry.maxSilentMs, at - lastWrite);
        lastWrite = at;
      };
      const whole = await pump(req, upstream, up, slow, (n) => (entry.bodyBytesUp += n), limit, wrote);
      if (!whole || entry.fate === 'cut-request') {
        upstream.destroy();
        return cut();
      }
      upstream.end();
      const response = await answer;
      entry.status = response.statusCode;
      if (slow()) await sleep(schedule.latencyMs / 2);
      if (entry.fate === 'cut-answer') {
        // The server has done its work; the phone never hears the answer.
        response.resume();
        return cut();
      }
      res.writeHead(response.statusCode ?? 502, response.headers);
      entry.bytesDown += 200;
      await pump(response, res, down, slow, (n) => (entry.bytesDown += n));
      res.on('finish', () => (entry.doneMs = now()));
      res.end();
    } catch {
      cut();
    }
  });
  server.keepAliveTimeout = 5_000;
  const front = await openFront(server, {
    refuse() {
      if (!offlineNow()) return false;
      refused++;
      return true;
    },
    onConnection(socket) {
      const lifetime = schedule.connectionLifetimeMs;
      if (!lifetime || !inSchedule()) return;
      const ms = lifetime.min + lifetimeRandom() * (lifetime.max - lifetime.min);
      const timer = setTimeout(() => {
        cutByLifetime++;
        socket.destroy();
      }, ms);
      socket.on('close', () => clearTimeout(timer));
    },
  });

  return {
    url: front.url,
    schedule,
    log,
    now,
    refused: () => refused,
    cutByLifetime: () => cutByLifetime,
    start() {
      startedAt = performance.now();
      // The signal drops: whatever is in flight dies with it.
      for (const w of schedule.offline) timers.push(setTimeout(front.cutAll, w.fromMs));
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await front.close();
    },
  };
}
