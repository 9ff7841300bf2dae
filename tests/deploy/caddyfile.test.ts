/**
 * The production front (deploy/Caddyfile in Debian's caddy, started by kit/caddy.ts) before the real
 * server, spoken to as phones speak to it: HTTP/2 over TLS. It names the client, the scheme and the
 * host to the server and no client can name them for it; it leaves the server's precompressed
 * files, their encodings and ETags as they are; it keeps /metrics from the world; a resumable
 * upload's 104, its HEAD and PATCH, and a note of the largest size pass.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../scripts/precompress.mjs';
import { contentDigestHeader } from '../../contract/contentDigest.js';
import { MAX_NOTE_BYTES } from '../../contract/limits.js';
import { INTEROP_VERSION, PARTIAL_UPLOAD_TYPE } from '../../contract/uploadProtocol.js';
import { type RunningFront, startFront, startServerBehindFront } from '../../kit/caddy.js';
import type { RunningServer } from '../../kit/server.js';
import { sha256Hex, WEBM_HEADER } from '../server/support/uploads.js';

interface Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  /** The informational (1xx) answers before it, in order. */
  interim: http2.IncomingHttpHeaders[];
  body: Buffer;
}

/** An HTTP/2 connection to the front as a phone makes one, from `localAddress` (all of 127.0.0.0/8 is this machine). */
function connect(front: RunningFront, localAddress = '127.0.0.1'): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(front.url, {
      createConnection: () =>
        tls.connect({
          socket: net.connect({ host: '127.0.0.1', port: front.port, localAddress }),
          servername: 'localhost',
          ca: front.caPem,
          ALPNProtocols: ['h2'],
        }),
    });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

function ask(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'GET', ...headers });
    const interim: http2.IncomingHttpHeaders[] = [];
    const chunks: Buffer[] = [];
    let final: http2.IncomingHttpHeaders = {};
    stream.on('headers', (h) => interim.push(h));
    stream.on('response', (h) => (final = h));
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('end', () => resolve({ status: Number(final[':status']), headers: final, interim, body: Buffer.concat(chunks) }));
    stream.on('error', reject);
    stream.end(body);
  });
}

/** Straight to the server over HTTP/1.1, with exactly these headers (fetch would add an Accept-Encoding). */
function direct(server: RunningServer, url: string, headers: http.OutgoingHttpHeaders = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.url}${url}`, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, interim: [], body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

/** A small built site, compressed by the build's own step (the site's build runs after these tests). */
async function writeSite(dir: string): Promise<void> {
  const page = `<!doctype html><title>MileNotes</title>${'<p>Voice notes for every mile.</p>'.repeat(60)}`;
  await mkdir(path.join(dir, 'assets'), { recursive: true });
  await writeFile(path.join(dir, 'index.html'), page);
  await writeFile(path.join(dir, 'r.html'), page);
  await writeFile(path.join(dir, 'assets', 'app-abc123.js'), `export const miles = [${'"mile", '.repeat(400)}];`);
  await precompress(dir);
}

describe('the front before the real server', () => {
  let dist: string;
  let server: RunningServer;
  let front: RunningFront;
  let phone: http2.ClientHttp2Session;
  /** A link of its own for each test: the recorder's per-minute limit counts a client on one link. */
  let tokens: string[];

  beforeAll(async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeSite(dist);
    // The server lets its own machine read /metrics, as an operator scraping on loopback would set it.
    ({ server, front } = await startServerBehindFront({ DIST_DIR: dist, METRICS_ALLOW: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '3' }));
    phone = await connect(front);
    // The admin CLI is a process each: side by side, they cost one start.
    tokens = await Promise.all(Array.from({ length: 4 }, () => server.createLink()));
  });
  afterAll(async () => {
    phone?.close();
    await front?.stop();
    await server?.stop();
    await rm(dist, { recursive: true, force: true });
  });

  it("should speak HTTP/2 and give the phone the server's __Host- cookie: Secure, HttpOnly, Path=/, no Domain", async () => {
    expect(phone.alpnProtocol).toBe('h2');
    const token = tokens[0]!;
    const answer = await ask(phone, { ':path': `/api/r/${token}` });
    expect(answer.status).toBe(200);
    expect(answer.headers['set-cookie']).toEqual([expect.stringMatching(/^__Host-mn_device=[\w.-]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax$/)]);
  });

  it('should count each phone by its own address, whatever X-Forwarded-For it sends', async () => {
    const token = tokens[1]!;
    const [one, two] = await Promise.all([connect(front, '127.0.0.2'), connect(front, '127.0.0.3')]);
    try {
      const statuses = [];
      for (const claimed of ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4']) {
        statuses.push((await ask(one, { ':path': `/api/r/${token}`, 'x-forwarded-for': claimed })).status);
      }
      // RATE_LIMIT_PER_MINUTE=3: the fourth from one phone is refused, however it names itself.
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect((await ask(two, { ':path': `/api/r/${token}` })).status).toBe(200);
    } finally {
      one.close();
      two.close();
    }
  });

  it('should send the precompressed files as the server made them: the same encoding, ETag and bytes', async () => {
    for (const url of ['/assets/app-abc123.js', '/']) {
      for (const encoding of ['br', 'gzip', undefined]) {
        const asked = encoding ? { 'accept-encoding': encoding } : {};
        const [through, straight] = await Promise.all([ask(phone, { ':path': url, ...asked }), direct(server, url, asked)]);
        expect(through.status).toBe(200);
        expect({ url, encoding: through.headers['content-encoding'], etag: through.headers.etag, vary: through.headers.vary }).toEqual({
          url,
          encoding: straight.headers['content-encoding'],
          etag: straight.headers.etag,
          vary: straight.headers.vary,
        });
        expect(through.headers['content-encoding']).toBe(encoding);
        expect(sha256Hex(through.body)).toBe(sha256Hex(straight.body));
      }
    }
  });

  it("should answer /metrics 404 itself, in any spelling, though the server shows them to the front's address", async () => {
    expect((await direct(server, '/metrics')).status).toBe(200);
    for (const url of ['/metrics', '/metrics?format=text', '/%6detrics', '/Metrics', '/metrics/']) {
      const answer = await ask(phone, { ':path': url });
      expect({ url, status: answer.status, body: answer.body.toString() }).toEqual({ url, status: 404, body: '' });
    }
  });

  it("should pass a resumable upload's 104 as it is sent, then its HEAD and the PATCH that completes it", async () => {
    const token = tokens[2]!;
    const noteId = randomUUID();
    const body = Buffer.alloc(200_000, 7);
    WEBM_HEADER.copy(body);
    const created = await ask(
      phone,
      {
        ':method': 'PUT',
        ':path': `/api/r/${token}/notes/${noteId}?marker=mi-20&from=Jo`,
        'content-type': 'audio/webm;codecs=opus',
        'content-digest': contentDigestHeader(sha256Hex(body)),
        'upload-draft-interop-version': INTEROP_VERSION,
        'upload-complete': '?0',
        'upload-length': String(body.length),
      },
      body.subarray(0, 80_000),
    );
    const location = `/api/r/${token}/uploads/${noteId}`;
    expect(created.interim.map((h) => [h[':status'], h.location, h['upload-draft-interop-version']])).toEqual([[104, location, INTEROP_VERSION]]);
    expect([created.status, created.headers['upload-offset']]).toEqual([201, '80000']);

    const offset = await ask(phone, { ':method': 'HEAD', ':path': location, 'upload-draft-interop-version': INTEROP_VERSION });
    expect([offset.status, offset.headers['upload-offset']]).toEqual([204, '80000']);
    const done = await ask(
      phone,
      {
        ':method': 'PATCH',
        ':path': location,
        'content-type': PARTIAL_UPLOAD_TYPE,
        'upload-draft-interop-version': INTEROP_VERSION,
        'upload-offset': '80000',
        'upload-complete': '?1',
      },
      body.subarray(80_000),
    );
    expect(done.status).toBe(201);
    expect(JSON.parse(done.body.toString())).toMatchObject({ id: noteId, bytes: body.length, sha256: sha256Hex(body) });
  });

  it('should pass a note of the largest size whole', async () => {
    const token = tokens[3]!;
    const body = Buffer.alloc(MAX_NOTE_BYTES);
    for (let i = 0; i < body.length; i += 4096) body.writeUInt32BE(i, i);
    WEBM_HEADER.copy(body);
    const answer = await ask(
      phone,
      {
        ':method': 'PUT',
        ':path': `/api/r/${token}/notes/${randomUUID()}?marker=mi-20&from=Jo`,
        'content-type': 'audio/webm;codecs=opus',
        'content-digest': contentDigestHeader(sha256Hex(body)),
      },
      body,
    );
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ bytes: MAX_NOTE_BYTES, sha256: sha256Hex(body) });
  });
});

describe('the headers the front sends the servers', () => {
  let upstream: http.Server;
  let front: RunningFront;
  let seen: http.IncomingHttpHeaders[];

  beforeAll(async () => {
    seen = [];
    upstream = http.createServer((req, res) => {
      seen.push(req.headers);
      res.end('ok');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    front = await startFront({ upstreams: [`127.0.0.1:${(upstream.address() as AddressInfo).port}`] });
  });
  afterAll(async () => {
    await front?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('should name the client, https and the host it was asked for, and replace what a client claims', async () => {
    const session = await connect(front, '127.0.0.7');
    try {
      await ask(session, { ':path': '/' });
      await ask(session, { ':path': '/', 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' });
    } finally {
      session.close();
    }
    const host = `localhost:${front.port}`;
    const forwarded = seen.map((h) => ({ host: h.host, for: h['x-forwarded-for'], proto: h['x-forwarded-proto'], forwardedHost: h['x-forwarded-host'] }));
    expect(forwarded).toEqual([
      { host, for: '127.0.0.7', proto: 'https', forwardedHost: host },
      { host, for: '127.0.0.7', proto: 'https', forwardedHost: host },
    ]);
  });
});
