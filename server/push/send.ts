/**
 * Sends one push (RFC 8030) to one subscription, after the PUSH_HOSTS check and never before it.
 * The `web-push` library makes what is hard to get right: the VAPID JWT (RFC 8292) and the
 * aes128gcm body (RFC 8291). The request is ours (TTL, Urgency, Topic), to the URL the check parsed,
 * never a second parse of the same string (web-push's own sender re-parses it with the legacy
 * url.parse), with a time limit and a cap on the answer read; the answer's status says what happens
 * next, as ./deliveries.ts applies it. Connections to a push service are kept open and shared, and
 * the VAPID signature is made once an hour per push service, not per push (bench push).
 */
import https from 'node:https';
import webpush from 'web-push';
import type { VapidKeys } from '../config/push.js';
import type { PushHost } from '../config/push-hosts.js';
import { checkEndpoint, type EndpointProblem } from './hosts.js';
import { retryAfterMs } from './retry.js';

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushMessage {
  payload: string;
  /** How long the push service keeps it for a phone that is not reachable (seconds). */
  ttlSeconds: number;
  urgency: 'normal' | 'high';
  /** At most 32 base64url characters: a push not yet delivered with the same topic is replaced. */
  topic: string;
}

export type SendOutcome =
  | { kind: 'sent' }
  /** 404 or 410: the subscription is gone for good. */
  | { kind: 'gone'; status: number }
  /** 429, 5xx or no answer: worth trying again, not before `retryAfterMs` when the service said. */
  | { kind: 'retry'; status?: number; retryAfterMs?: number }
  /** Any other refusal (413 too big, 400, 401/403 our signature): trying again would not help. */
  | { kind: 'rejected'; status: number }
  /** Not a push service PUSH_HOSTS lists: no connection was made. */
  | { kind: 'refused'; problem: EndpointProblem };

export type PushSender = (target: PushTarget, message: PushMessage) => Promise<SendOutcome>;

export interface SenderOptions {
  hosts: readonly PushHost[];
  keys: VapidKeys;
  subject: string;
  /** The whole request, connection to answer. */
  timeoutMs: number;
  now?: () => number;
}

/** A push service's answer body is a short sentence at most; nothing past this is read. */
const MAX_ANSWER_BYTES = 4096;
/** A VAPID signature is good for 12 h (web-push's default); a new one is made well before. */
const VAPID_REUSE_MS = 3600_000;
/** Open connections per push service, kept alive between pushes. */
const SOCKETS_PER_HOST = 64;

function post(agent: https.Agent, url: URL, headers: Record<string, string | number>, body: Buffer, timeoutMs: number) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const req = https.request(
      {
        agent,
        protocol: 'https:',
        hostname: url.hostname,
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        timeout: timeoutMs,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        res.on('error', () => undefined);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from the push service within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export function createPushSender(opts: SenderOptions): PushSender {
  const now = opts.now ?? Date.now;
  const agent = new https.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST, scheduling: 'lifo' });
  const signed = new Map<string, { authorization: string; at: number }>();
  /** The Authorization for a push service's origin, signed again once an hour. */
  function authorizationFor(audience: string): string {
    const kept = signed.get(audience);
    if (kept && now() - kept.at < VAPID_REUSE_MS) return kept.authorization;
    const { Authorization } = webpush.getVapidHeaders(audience, opts.subject, opts.keys.publicKey, opts.keys.privateKey, 'aes128gcm');
    // A handful of push services: the map stays small; a stale entry is replaced, never piled up.
    signed.set(audience, { authorization: Authorization, at: now() });
    return Authorization;
  }
  return async (target, message) => {
    const checked = checkEndpoint(opts.hosts, target.endpoint);
    if ('problem' in checked) return { kind: 'refused', problem: checked.problem };
    let body: Buffer;
    let headers: Record<string, string | number>;
    try {
      body = webpush.encrypt(target.p256dh, target.auth, message.payload, 'aes128gcm').cipherText;
      // The audience is the origin of the URL the check parsed, never a second parse of the string.
      headers = {
        Authorization: authorizationFor(checked.url.origin),
        TTL: message.ttlSeconds,
        Urgency: message.urgency,
        Topic: message.topic,
        'Content-Encoding': 'aes128gcm',
        'Content-Type': 'application/octet-stream',
        'Content-Length': body.length,
      };
    } catch {
      // The browser's keys do not make a key agreement (checked when saved; kept here for old rows).
      return { kind: 'rejected', status: 0 };
    }
    let answer: Awaited<ReturnType<typeof post>>;
    try {
      answer = await post(agent, checked.url, headers, body, opts.timeoutMs);
    } catch {
      return { kind: 'retry' };
    }
    const { status } = answer;
    if (status >= 200 && status < 300) return { kind: 'sent' };
    if (status === 404 || status === 410) return { kind: 'gone', status };
    if (status === 429 || status >= 500) return { kind: 'retry', status, retryAfterMs: retryAfterMs(answer.headers['retry-after'], now()) };
    return { kind: 'rejected', status };
  };
}
