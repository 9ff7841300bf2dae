/**
 * Web Push settings, read once from the environment (./index.ts joins them in). Push is on
 * unless PUSH=off: without VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY the first server makes a pair and
 * keeps it in the database for every server (./keys.ts), so turning push on needs nothing more than
 * a subject in production.
 */
import { createECDH } from 'node:crypto';
import { positiveInt } from './settings.js';
import { DEFAULT_PUSH_HOSTS, parsePushHosts, type PushHost } from './push-hosts.js';

export interface VapidKeys {
  /** The uncompressed P-256 point (65 bytes), base64url: the recorder's applicationServerKey. */
  publicKey: string;
  /** The private scalar (32 bytes), base64url. */
  privateKey: string;
}

export interface PushConfig {
  /** PUSH=off: no push routes answer but with push_off, nothing is queued or sent. */
  enabled: boolean;
  /** VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY; undefined: made once and kept in the database. */
  vapidKeys: VapidKeys | undefined;
  /** VAPID_SUBJECT (RFC 8292's `sub`): how a push service reaches the operator, mailto: or https:. */
  subject: string;
  /** PUBLIC_URL's origin: where a push's tap goes (its `navigate`). */
  origin: string;
  /** PUSH_HOSTS: the only hosts a push is sent to. */
  hosts: PushHost[];
  /** PUSH_MAX_PER_LINK phones on one link, PUSH_MAX_PER_PHONE links on one phone. */
  limits: { perLink: number; perPhone: number };
}

const B64URL = /^[A-Za-z0-9_-]+$/;

/** Throws unless the two make a P-256 pair, base64url without padding, as web-push and browsers take them. */
export function checkVapidPair(keys: VapidKeys): void {
  const pub = B64URL.test(keys.publicKey) ? Buffer.from(keys.publicKey, 'base64url') : Buffer.alloc(0);
  const priv = B64URL.test(keys.privateKey) ? Buffer.from(keys.privateKey, 'base64url') : Buffer.alloc(0);
  if (pub.length !== 65 || pub[0] !== 4) throw new Error('VAPID_PUBLIC_KEY must be an uncompressed P-256 public key (65 bytes), base64url without padding');
  if (priv.length !== 32) throw new Error('VAPID_PRIVATE_KEY must be a P-256 private key (32 bytes), base64url without padding');
  let derived: Buffer;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(priv);
    derived = ecdh.getPublicKey();
  } catch {
    throw new Error('VAPID_PRIVATE_KEY is not a valid P-256 private key');
  }
  if (!derived.equals(pub)) throw new Error('VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY: give both keys of one pair');
}

/** A `sub` push services take: a mailto: address or an https: URL. */
function checkSubject(subject: string): string {
  const ok =
    /^mailto:[^@\s]+@[^@\s]+$/.test(subject) ||
    (() => {
      try {
        return new URL(subject).protocol === 'https:';
      } catch {
        return false;
      }
    })();
  if (!ok) throw new Error(`VAPID_SUBJECT must be a mailto: address or an https: URL where a push service can reach you, got '${subject}'`);
  return subject;
}

/** A host name only this machine answers to: localhost, *.localhost, loopback addresses. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1' || host === '0.0.0.0';
}

/** The subject names localhost (mailto:x@localhost, https://localhost): Apple answers every push 403 BadJwtToken. */
export function subjectNamesLocalhost(subject: string): boolean {
  const mail = /^mailto:[^@\s]+@([^@\s>]+)$/.exec(subject);
  if (mail) return isLocalHost(mail[1]!);
  try {
    return isLocalHost(new URL(subject).hostname);
  } catch {
    return false;
  }
}

/**
 * Without VAPID_SUBJECT: the site itself when PUBLIC_URL is https, else a mailto: at its host, fine on
 * a laptop; production must say (Apple refuses a subject it cannot use).
 */
function defaultSubject(env: NodeJS.ProcessEnv, publicUrl: string): string {
  if (publicUrl.startsWith('https://')) return publicUrl;
  if (env.NODE_ENV === 'production') {
    throw new Error('VAPID_SUBJECT is required in production when PUBLIC_URL is not https: (a mailto: address for the push services), or set PUSH=off');
  }
  return `mailto:push@${new URL(publicUrl).hostname}`;
}

export function loadPushConfig(env: NodeJS.ProcessEnv, publicUrl: string): PushConfig {
  const switched = (env.PUSH ?? 'on').trim().toLowerCase();
  if (!['on', 'off', '1', '0', 'true', 'false'].includes(switched)) throw new Error(`PUSH must be on or off, got '${env.PUSH}'`);
  const enabled = ['on', '1', 'true'].includes(switched);
  const pub = env.VAPID_PUBLIC_KEY?.trim() || undefined;
  const priv = env.VAPID_PRIVATE_KEY?.trim() || undefined;
  if ((pub === undefined) !== (priv === undefined))
    throw new Error('Set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, or neither (a pair is then made and kept in the database)');
  const vapidKeys = pub && priv ? { publicKey: pub, privateKey: priv } : undefined;
  if (enabled && vapidKeys) checkVapidPair(vapidKeys);
  const given = env.VAPID_SUBJECT?.trim();
  const subject = !enabled ? '' : given ? checkSubject(given) : defaultSubject(env, publicUrl);
  if (enabled && env.NODE_ENV === 'production' && subjectNamesLocalhost(subject)) {
    throw new Error(
      `VAPID_SUBJECT names localhost ('${subject}'): Apple's push service refuses every push signed so (403 BadJwtToken). Give a mailto: address or https: URL of yours, or set PUSH=off`,
    );
  }
  return {
    enabled,
    vapidKeys,
    subject,
    origin: new URL(publicUrl).origin,
    hosts: parsePushHosts(env.PUSH_HOSTS ?? DEFAULT_PUSH_HOSTS),
    // A runner's link reaches friends and family, a few hundred at most; one phone follows a few runners.
    limits: { perLink: positiveInt(env, 'PUSH_MAX_PER_LINK', 500), perPhone: positiveInt(env, 'PUSH_MAX_PER_PHONE', 20) },
  };
}
