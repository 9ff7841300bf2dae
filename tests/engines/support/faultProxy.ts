/**
 * A proxy on 127.0.0.1 in front of the test server that fails on command: the whole server
 * unreachable, note uploads answered 503, or an upload cut after some bytes. Engines without
 * CDP cannot fake a bad network themselves, so the bad network lives here, for every engine alike.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const NOTE_UPLOAD = /^\/api\/r\/[^/]+\/notes\//;

export type UploadFault = { kind: 'status'; status: number } | { kind: 'cut'; afterBytes: number };

export interface UploadSeen {
  method: string;
  path: string;
  /** What the proxy did: passed it on, answered with a status, or cut it. */
  fate: 'passed' | 'status' | 'cut';
  bodyBytes: number;
  status?: number;
}

export interface FaultProxy {
  url: string;
  /** Every note upload (PUT/POST/PATCH/HEAD under /api/r/:token/notes/) in arrival order. */
  readonly uploads: UploadSeen[];
  /** Refuses new connections and cuts open ones: the server is unreachable. */
  down(): void;
  up(): void;
  /** The next note uploads meet these faults, one each, in order. */
  failUploads(...faults: UploadFault[]): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  const sockets = new Set<Socket>();
  const uploads: UploadSeen[] = [];
  const faults: UploadFault[] = [];
  let isDown = false;

  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const isUpload = NOTE_UPLOAD.test(path) && req.method !== 'GET';
    const seen: UploadSeen | undefined = isUpload ? { method: req.method!, path, fate: 'passed', bodyBytes: 0 } : undefined;
    if (seen) uploads.push(seen);
    const fault = isUpload ? faults.shift() : undefined;
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
    const upstream = http.request({ host: '127.0.0.1', port: targetPort, method: req.method, path, headers: req.headers });
    upstream.on('error', () => req.socket.destroy());
    upstream.on('response', (answer) => {
      if (seen) seen.status = answer.statusCode;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    if (fault?.kind === 'cut') {
      seen!.fate = 'cut';
      let forwarded = 0;
      req.on('data', (chunk: Buffer) => {
        const room = fault.afterBytes - forwarded;
        if (room <= 0) return;
        upstream.write(chunk.subarray(0, room));
        forwarded += Math.min(room, chunk.length);
        // The link dies here: the server sees a short body, the browser a dropped connection.
        if (forwarded >= fault.afterBytes) {
          upstream.destroy();
          req.socket.destroy();
        }
      });
      req.on('end', () => upstream.destroy());
      return;
    }
    req.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    if (isDown) return socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Browsers keep connections: a 'down' proxy must cut those too, and close() must not wait on them.
  server.keepAliveTimeout = 2_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    uploads,
    down() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      isDown = false;
    },
    failUploads(...next) {
      faults.push(...next);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
