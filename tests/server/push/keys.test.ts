/**
 * The VAPID keys every server signs with: the environment's pair when given (checked to
 * be one P-256 pair), else one made by the first server and kept in the database, sealed, for every
 * server; the settings an operator turns push on and off with.
 */
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { loadPushConfig } from '../../../server/config/push.js';
import { keptVapidKeys } from '../../../server/push/keys.js';
import { restartOn, startTestApp, type TestApp } from '../support/app.js';
import { BACKENDS } from '../support/backends.js';
import { makeLink } from '../support/uploads.js';

const SECRET = 'push-keys-secret-that-is-long-enough-0123456789';

describe.each(BACKENDS)('the VAPID keys on %s', (kind) => {
  let t: TestApp;
  let db: Database;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { SESSION_SECRET: SECRET });
    db = openDatabase(t.backend.config);
    token = await makeLink(t.app.repo);
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
  });

  const publicKeyOf = async (app: TestApp['app']) => {
    const res = await app.inject({ url: `/api/r/${token}/push` });
    return res.statusCode === 200 ? (res.json().publicKey as string) : `${res.statusCode} ${res.json().error}`;
  };

  it('should make one pair at the first start and sign with it on every server, its private key sealed', async () => {
    const other = await restartOn(t.backend, { SESSION_SECRET: SECRET });
    try {
      const key = await publicKeyOf(t.app);
      expect(key).toMatch(/^[A-Za-z0-9_-]{87}$/);
      expect(await publicKeyOf(other)).toBe(key);
      const rows = await db.all('SELECT public_key, sealed_private_key FROM push_keys');
      expect(rows.map((r) => r.public_key)).toEqual([key]);
      // Sealed: not the 32-byte key itself, and only this secret opens it (what a preflight check reads).
      expect(Buffer.from(String(rows[0]!.sealed_private_key), 'base64url').length).toBeGreaterThan(32 + 12);
      expect(await keptVapidKeys(t.app.repo.push, new TextEncoder().encode(SECRET))).toMatchObject({ publicKey: key });
      expect(await keptVapidKeys(t.app.repo.push, new TextEncoder().encode('another-secret-that-is-long-enough-0123456789'))).toBe('unreadable');
    } finally {
      await other.close();
    }
  });

  it('should turn push off, not make another pair, on a server whose SESSION_SECRET cannot open the kept key', async () => {
    // Its error line is the operator's cue, not this test's output.
    const stranger = await restartOn(t.backend, { SESSION_SECRET: 'another-secret-that-is-long-enough-0123456789', LOG_LEVEL: 'silent' });
    try {
      expect(await publicKeyOf(stranger)).toBe('404 push_off');
      expect(await db.all('SELECT public_key FROM push_keys')).toHaveLength(1);
    } finally {
      await stranger.close();
    }
  });

  it("should sign with the environment's pair when VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set", async () => {
    const pair = webpush.generateVAPIDKeys();
    const configured = await restartOn(t.backend, { SESSION_SECRET: SECRET, VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey });
    try {
      expect(await publicKeyOf(configured)).toBe(pair.publicKey);
    } finally {
      await configured.close();
    }
  });

  it('should answer push_off on the push routes with PUSH=off', async () => {
    const off = await restartOn(t.backend, { SESSION_SECRET: SECRET, PUSH: 'off' });
    try {
      expect(await publicKeyOf(off)).toBe('404 push_off');
      const put = await off.inject({ method: 'PUT', url: `/api/r/${token}/push/alerts/mi-20` });
      expect([put.statusCode, put.json().error]).toEqual([404, 'push_off']);
    } finally {
      await off.close();
    }
  });
});

describe('the push settings', () => {
  const pair = webpush.generateVAPIDKeys();
  const load = (env: NodeJS.ProcessEnv, publicUrl = 'http://localhost:8080') => loadPushConfig(env, publicUrl);

  it('should be on by default, for the four push services, with a subject from PUBLIC_URL', () => {
    const config = load({}, 'https://milenotes.example');
    expect(config).toMatchObject({ enabled: true, vapidKeys: undefined, subject: 'https://milenotes.example', limits: { perLink: 500, perPhone: 20 } });
    expect(config.hosts.map((h) => `${h.wildcard ? '*.' : ''}${h.name}`)).toEqual([
      'web.push.apple.com',
      'fcm.googleapis.com',
      'updates.push.services.mozilla.com',
      '*.notify.windows.com',
    ]);
    expect(load({}).subject).toBe('mailto:push@localhost');
    expect(load({ VAPID_SUBJECT: 'mailto:ops@milenotes.example' }).subject).toBe('mailto:ops@milenotes.example');
    expect(load({ PUSH: 'off' }).enabled).toBe(false);
  });

  it('should refuse a pair that is not one P-256 pair, half a pair, a subject push services refuse, and production without a subject', () => {
    const other = webpush.generateVAPIDKeys();
    expect(load({ VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey }).vapidKeys).toEqual(pair);
    expect(() => load({ VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: other.privateKey })).toThrow(/not the public key of VAPID_PRIVATE_KEY/);
    expect(() => load({ VAPID_PUBLIC_KEY: pair.publicKey })).toThrow(/both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY/);
    expect(() => load({ VAPID_PUBLIC_KEY: 'short', VAPID_PRIVATE_KEY: pair.privateKey })).toThrow(/65 bytes/);
    expect(() => load({ VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: 'A'.repeat(43) })).toThrow(/VAPID_PRIVATE_KEY/);
    expect(() => load({ VAPID_SUBJECT: 'ops@milenotes.example' })).toThrow(/VAPID_SUBJECT/);
    expect(() => load({ VAPID_SUBJECT: 'http://milenotes.example' })).toThrow(/VAPID_SUBJECT/);
    expect(() => load({ NODE_ENV: 'production' })).toThrow(/VAPID_SUBJECT is required/);
    expect(load({ NODE_ENV: 'production', PUSH: 'off' }).enabled).toBe(false);
    expect(() => load({ PUSH: 'maybe' })).toThrow(/PUSH must be on or off/);
    expect(() => load({ PUSH_MAX_PER_LINK: '0' })).toThrow(/PUSH_MAX_PER_LINK/);
  });

  it('should refuse to start in production with a subject naming localhost, which Apple answers 403 BadJwtToken', () => {
    for (const subject of ['mailto:push@localhost', 'https://localhost:8443', 'mailto:ops@127.0.0.1', 'https://notes.localhost']) {
      expect(() => load({ NODE_ENV: 'production', VAPID_SUBJECT: subject }, 'https://notes.example.com')).toThrow(/names localhost.*BadJwtToken/);
      expect(load({ VAPID_SUBJECT: subject }).subject).toBe(subject);
    }
    expect(() => load({ NODE_ENV: 'production' }, 'https://localhost:8443')).toThrow(/names localhost/);
    expect(load({ NODE_ENV: 'production', VAPID_SUBJECT: 'mailto:ops@localhost.example.com' }, 'https://notes.example.com').subject).toBe(
      'mailto:ops@localhost.example.com',
    );
    expect(load({}, 'https://notes.example.com:8443').origin).toBe('https://notes.example.com:8443');
  });
});
