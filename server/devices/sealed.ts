/**
 * Sealing a secret under the session secret: AES-256-GCM under keys derived from it (HKDF), so the
 * database alone opens nothing, and every server with the same SESSION_SECRET opens what another
 * sealed. A new secret leaves old seals unreadable.
 *
 * A link's token kept for the phone that opened it (device_links.sealed_token, createDeviceLinkSeal)
 * is bound by its associated data to what it is for, that phone and that link: copied into another
 * phone's row, or another link's, it opens nothing, so whoever can write rows but lacks the secret
 * is handed no token. Those links drop off the home screen's list until the phone opens
 * them again. createTokenSeal binds a label only (the push subscriptions' tokens and the VAPID key).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface TokenSeal {
  seal(linkId: string, token: string): string;
  /** The token, or undefined when the seal does not open (another secret, or tampered). */
  open(linkId: string, sealed: string): string | undefined;
}

/** A link's token sealed for one phone's row. */
export interface DeviceLinkSeal {
  seal(deviceId: string, linkId: string, token: string): string;
  /** The token, or undefined when the seal does not open (another secret, phone or link, or tampered). */
  open(deviceId: string, linkId: string, sealed: string): string | undefined;
}

/** What device_links seals are for: the first part of their associated data. */
export const DEVICE_LINK_PURPOSE = 'device-link-token';

const keyOf = (sessionSecret: Uint8Array, info: string) => Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), info, 32));

function sealWith(key: Buffer, aad: string, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

function openWith(key: Buffer, aad: string, sealed: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 12 + 16 + 1) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export function createTokenSeal(sessionSecret: Uint8Array): TokenSeal {
  const key = keyOf(sessionSecret, 'milenotes device links v1');
  return { seal: (label, token) => sealWith(key, label, token), open: (label, sealed) => openWith(key, label, sealed) };
}

export function createDeviceLinkSeal(sessionSecret: Uint8Array): DeviceLinkSeal {
  // Its own key: nothing sealed by createTokenSeal (nor a device_links row of migration 12) opens here.
  const key = keyOf(sessionSecret, 'milenotes device-link-token v2');
  // Ids hold no NUL, so the parts cannot be shifted from one to another.
  const aad = (deviceId: string, linkId: string) => [DEVICE_LINK_PURPOSE, deviceId, linkId].join('\0');
  return {
    seal: (deviceId, linkId, token) => sealWith(key, aad(deviceId, linkId), token),
    open: (deviceId, linkId, sealed) => openWith(key, aad(deviceId, linkId), sealed),
  };
}
