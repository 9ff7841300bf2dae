/**
 * The VAPID key pair this server signs pushes with (RFC 8292), the same on every server: the
 * environment's when given, else the one kept in the database, made by the first server that needed
 * it (the insert keeps the first pair; every other server reads that one). Its private key is kept
 * sealed under the session secret (server/devices/sealed.ts), so the database alone cannot sign a
 * push to the phones whose subscriptions it also holds.
 */
import webpush from 'web-push';
import { createTokenSeal } from '../devices/sealed.js';
import type { PushStore } from '../db/push-store.js';
import type { VapidKeys } from '../config/push.js';

/** What the seal binds the private key to, so no other sealed value can stand in for it. */
const SEAL_LABEL = 'push:vapid-private-key';

export class UnreadableVapidKey extends Error {
  constructor() {
    super(
      'The VAPID private key kept in the database was sealed under another SESSION_SECRET: restore that secret, or set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY. Push is off until then.',
    );
    this.name = 'UnreadableVapidKey';
  }
}

/**
 * The pair kept in the database, read only: 'none' before any server made one, 'unreadable' when
 * this SESSION_SECRET cannot open its private key. What a preflight check can ask without writing.
 */
export async function keptVapidKeys(store: Pick<PushStore, 'keys'>, sessionSecret: Uint8Array): Promise<VapidKeys | 'none' | 'unreadable'> {
  const kept = await store.keys();
  if (!kept) return 'none';
  const privateKey = createTokenSeal(sessionSecret).open(SEAL_LABEL, kept.sealedPrivateKey);
  return privateKey ? { publicKey: kept.publicKey, privateKey } : 'unreadable';
}

/** The pair to sign with: the environment's, else the kept one, made and kept now if there is none. */
export async function vapidKeysOf(
  store: Pick<PushStore, 'keys' | 'keepKeys'>,
  fromEnv: VapidKeys | undefined,
  sessionSecret: Uint8Array,
  now: number,
): Promise<VapidKeys> {
  if (fromEnv) return fromEnv;
  if ((await store.keys()) === undefined) {
    const made = webpush.generateVAPIDKeys();
    await store.keepKeys({ publicKey: made.publicKey, sealedPrivateKey: createTokenSeal(sessionSecret).seal(SEAL_LABEL, made.privateKey) }, now);
  }
  const kept = await keptVapidKeys(store, sessionSecret);
  if (typeof kept === 'string') throw new UnreadableVapidKey();
  return kept;
}
