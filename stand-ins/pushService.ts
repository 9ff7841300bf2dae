/**
 * A stand-in for a browser's push service (FCM, Apple's, Mozilla's) on loopback HTTPS: it makes the
 * browser's side of each subscription (a P-256 key pair and an auth secret, RFC 8291), and checks
 * what a server POSTs as the real services do: the VAPID JWT (RFC 8292: ES256, `aud` its own
 * origin, `exp` within 24 h, `sub` a mailto: or https: URL) against the `k=` key, TTL and
 * Content-Encoding: aes128gcm. It then decrypts the body as the browser would and records it, and
 * answers 201 or what the test scripted (410, 429 with Retry-After, 503...).
 *
 * Its certificate is made at start (openssl: node:crypto makes keys but no X.509 certificate) and
 * never kept; a server trusts it through NODE_EXTRA_CA_CERTS=caFile, or in-process through
 * tls.setDefaultCACertificates. The JWT is checked with jose; the decryption is node:crypto's ECDH
 * and HKDF, about twenty lines of RFC 8291 written out, so the test does not trust the very library
 * (web-push's http_ece) whose output it checks.
 */
import { execFile } from 'node:child_process';
import { createDecipheriv, createECDH, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeProtectedHeader, importJWK, jwtVerify, type JWTPayload } from 'jose';

/** A subscription as the browser's PushSubscription.toJSON() gives it. */
export interface StandInSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

/** A push the service accepted, decrypted. */
export interface ReceivedPush {
  endpoint: string;
  /** The decrypted payload, as the service worker's event.data.text() reads it. */
  text: string;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  claims: JWTPayload;
}

/** What the service answers to the next push of a subscription. */
export interface ScriptedAnswer {
  status: number;
  retryAfter?: string;
  /** The answer waits for this (a push service slow to answer). */
  after?: Promise<unknown>;
}

export interface PushServiceStandIn {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** 127.0.0.1:<port>, as PUSH_HOSTS names it. */
  host: string;
  /** The certificate (PEM) to trust, and a file holding it for NODE_EXTRA_CA_CERTS. */
  caPem: string;
  caFile: string;
  /** A new subscription on this service: the browser's keys are kept here to decrypt its pushes. */
  subscribe(): StandInSubscription;
  /** The next answers to pushes for this endpoint, in order; then 201 again. */
  script(endpoint: string, ...answers: ScriptedAnswer[]): void;
  /** Pushes accepted (answered 2xx), in order. */
  received(): ReceivedPush[];
  /** Every request that reached the service, whatever it was answered. */
  requests(): number;
  /** Requests it refused (a bad signature, encoding or body), with why. */
  refusals(): string[];
  close(): Promise<void>;
}

interface Browser {
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
  answers: ScriptedAnswer[];
}

const run = promisify(execFile);

/** A self-signed P-256 certificate for 127.0.0.1, valid a day. */
async function certificate(dir: string): Promise<{ key: string; cert: string; certFile: string }> {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8'), certFile };
}

/** RFC 8291 + RFC 8188, one record: what the browser does with the body. */
export function decryptPush(body: Buffer, browser: { ecdh: ReturnType<typeof createECDH>; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const serverPublic = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (idLength !== 65 || record.length > recordSize) throw new Error('not one aes128gcm record keyed by a P-256 point');
  const browserPublic = browser.ecdh.getPublicKey();
  const secret = browser.ecdh.computeSecret(serverPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browserPublic, serverPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, browser.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/** RFC 8292: `vapid t=<JWT>, k=<P-256 public key>`; the claims when the JWT is the key's and for us. */
async function checkVapid(authorization: string | undefined, origin: string): Promise<JWTPayload> {
  const fields = Object.fromEntries(
    (/^vapid (.+)$/i.exec(authorization ?? '')?.[1] ?? '').split(',').map((f) => {
      const i = f.indexOf('=');
      return [f.slice(0, i).trim(), f.slice(i + 1).trim()];
    }),
  );
  if (!fields.t || !fields.k) throw new Error('no vapid t= and k=');
  const point = Buffer.from(fields.k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k= is not an uncompressed P-256 point');
  if (decodeProtectedHeader(fields.t).alg !== 'ES256') throw new Error('the JWT is not ES256');
  const key = await importJWK(
    { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    'ES256',
  );
  const { payload } = await jwtVerify(fields.t, key, { audience: origin, algorithms: ['ES256'] });
  if (typeof payload.exp !== 'number' || payload.exp > Date.now() / 1000 + 24 * 3600) throw new Error('exp missing or more than 24 h ahead');
  if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) throw new Error('sub is not a mailto: or https: URL');
  return payload;
}

/** For the bench (bench/sections/push.ts): a service that answers many pushes cheaply and as told. */
export interface PushServiceOptions {
  /** false: the signature is not checked nor the body decrypted (the bench's pushes are counted by Topic, not read). */
  verify?: boolean;
  /** An answer for a push that has none scripted (slow, 429, 410...), or undefined for the usual. */
  answer?: (endpoint: string) => ScriptedAnswer | undefined;
  /** Every answer given to a push, with its Topic. */
  onAnswer?: (endpoint: string, topic: string | undefined, status: number) => void;
}

export async function startPushService(options: PushServiceOptions = {}): Promise<PushServiceStandIn> {
  const verify = options.verify ?? true;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-push-'));
  const { key, cert, certFile } = await certificate(dir);
  const browsers = new Map<string, Browser>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  let requests = 0;
  let origin = '';

  const server = https.createServer({ key, cert }, (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const endpoint = `${origin}${req.url ?? ''}`;
        const browser = req.method === 'POST' ? browsers.get(endpoint) : undefined;
        if (!browser) return answer(404, 'no such subscription');
        const scripted = browser.answers.shift() ?? options.answer?.(endpoint);
        await scripted?.after;
        if (scripted && (scripted.status < 200 || scripted.status > 299)) {
          return answer(scripted.status, 'scripted', scripted.retryAfter === undefined ? {} : { 'retry-after': scripted.retryAfter });
        }
        let claims: JWTPayload = {};
        try {
          if (verify) claims = await checkVapid(req.headers.authorization, origin);
        } catch (err) {
          return answer(403, `vapid: ${(err as Error).message}`);
        }
        const ttl = Number(req.headers.ttl);
        if (!/^\d+$/.test(String(req.headers.ttl ?? ''))) return answer(400, 'no TTL');
        if (req.headers['content-encoding'] !== 'aes128gcm') return answer(415, 'not aes128gcm');
        let text = '';
        try {
          if (verify) text = decryptPush(Buffer.concat(chunks), browser);
        } catch (err) {
          return answer(400, `decrypt: ${(err as Error).message}`);
        }
        const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
        if (verify) received.push({ endpoint, text, ttl, urgency: header('urgency'), topic: header('topic'), claims });
        answer(scripted?.status ?? 201, 'accepted');
      })();
    });
    function answer(status: number, why: string, headers: Record<string, string> = {}) {
      if (status >= 400 && why !== 'scripted') refused.push(why);
      const topic = req.headers.topic;
      options.onAnswer?.(`${origin}${req.url ?? ''}`, typeof topic === 'string' ? topic : undefined, status);
      res.writeHead(status, headers).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `https://127.0.0.1:${port}`;

  return {
    origin,
    host: `127.0.0.1:${port}`,
    caPem: cert,
    caFile: certFile,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const endpoint = `${origin}/push/${randomUUID()}`;
      browsers.set(endpoint, { ecdh, auth, answers: [] });
      return { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
    },
    script(endpoint, ...answers) {
      browsers.get(endpoint)?.answers.push(...answers);
    },
    received: () => [...received],
    requests: () => requests,
    refusals: () => [...refused],
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
