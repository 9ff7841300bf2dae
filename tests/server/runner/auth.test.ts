import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashToken } from '../../../server/auth/tokens.js';
import { openDatabase } from '../../../server/db/index.js';
import { BACKENDS } from '../support/backends.js';
import { FAKE_APPLE_NONCE } from '../../../stand-ins/fakeApple.js';
import { startRunnerApp, type RunnerTestApp } from './support.js';

describe.each(BACKENDS)('runner sign-in on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    // Well above the refreshes these tests make; the limit itself is tested below.
    t = await startRunnerApp(kind, { SIGN_IN_RATE_LIMIT_PER_MINUTE: '500' });
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Moves the app's clock (Date only: timers and the database run as usual) past the default 60 s refresh grace. */
  const pastTheGrace = () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
  };

  const signInWith = async (identityToken: string, nonce: string | null = FAKE_APPLE_NONCE) =>
    t.app.inject({ method: 'POST', url: '/api/auth/apple', payload: { identityToken, ...(nonce === null ? {} : { nonce }) } });
  const refresh = (refreshToken: string) => t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } });

  it('should create the runner on first sign-in and find the same runner the next time', async () => {
    const first = await t.signIn('apple-sub-same');
    const second = await t.signIn('apple-sub-same');
    expect(first.runner.id).toBe(second.runner.id);
    expect(first.accessToken).not.toBe(second.accessToken);
    expect(first.refreshToken).not.toBe(second.refreshToken);
    expect(first.accessTokenExpiresIn).toBe(900);
    const other = await t.signIn('apple-sub-other');
    expect(other.runner.id).not.toBe(first.runner.id);
  });

  it('should refuse tampered, expired, wrong-issuer, wrong-audience and wrong-nonce tokens with 401', async () => {
    const good = await t.apple.token();
    const [h, p, s] = good.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'x' })).toString('base64url')}.${s}`;
    for (const token of [
      tampered,
      await t.apple.token({ expiresIn: -120 }),
      await t.apple.token({ iss: 'https://evil.example' }),
      await t.apple.token({ aud: 'com.other.app' }),
      await t.apple.token({ foreignKey: true, kid: 'test-key-1' }),
    ]) {
      const res = await signInWith(token);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'sign_in_refused', message: expect.stringMatching(/could not be confirmed/) });
    }
    expect((await signInWith(await t.apple.token({ nonce: 'one' }), 'two')).statusCode).toBe(401);
    expect((await signInWith(await t.apple.token({ nonce: 'one' }), 'one')).statusCode).toBe(200);
  });

  it('should rotate the refresh token on use and refuse the used one after the grace', async () => {
    const session = await t.signIn();
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: session.refreshToken } });
    expect(res.statusCode).toBe(200);
    expect(res.json().runner.id).toBe(session.runner.id);
    expect(res.json().refreshToken).not.toBe(session.refreshToken);
    pastTheGrace();
    const again = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: session.refreshToken } });
    expect(again.statusCode).toBe(401);
    expect(again.json().error).toBe('session_expired');
    const other = await t.signIn();
    expect((await t.call(other, 'GET', '/api/entries')).statusCode).toBe(200);
  });

  it('should answer a refresh retried within the grace with the same tokens, and keep the session going', async () => {
    const session = await t.signIn();
    const first = await refresh(session.refreshToken);
    expect(first.statusCode).toBe(200);
    // The answer was lost on the cell; the phone sends the same request again a little later.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 30_000);
    const retry = await refresh(session.refreshToken);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().refreshToken).toBe(first.json().refreshToken);
    expect(retry.json().accessToken).toBe(first.json().accessToken);
    expect(retry.json().accessTokenExpiresIn).toBeLessThanOrEqual(first.json().accessTokenExpiresIn - 29);
    expect((await t.call(retry.json(), 'GET', '/api/entries')).statusCode).toBe(200);
    const next = await refresh(retry.json().refreshToken);
    expect(next.statusCode).toBe(200);
    expect(next.json().refreshToken).not.toBe(retry.json().refreshToken);
    expect((await t.call(next.json(), 'GET', '/api/entries')).statusCode).toBe(200);
  });

  it('should keep only hashes of refresh tokens, so one who reads the database cannot refresh', async () => {
    const session = await t.signIn();
    const next = (await refresh(session.refreshToken)).json().refreshToken as string;
    const db = openDatabase(t.backend.config);
    try {
      const rows = [
        ...(await db.all('SELECT * FROM sessions WHERE refresh_hash = ?', [hashToken(next)])),
        ...(await db.all('SELECT * FROM used_refresh_tokens WHERE hash = ?', [hashToken(session.refreshToken)])),
      ];
      expect(rows).toHaveLength(2);
      const stored = JSON.stringify(rows);
      for (const token of [session.refreshToken, next]) expect(stored).not.toContain(token);
    } finally {
      await db.close();
    }
  });

  it('should give every one of several refreshes of one token sent at once the same tokens', async () => {
    const session = await t.signIn();
    const answers = await Promise.all([1, 2, 3, 4].map(() => refresh(session.refreshToken)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.json().refreshToken)).size).toBe(1);
    expect(new Set(answers.map((a) => a.json().accessToken)).size).toBe(1);
    expect((await refresh(answers[0]!.json().refreshToken)).statusCode).toBe(200);
  });

  it('should revoke the session when a token comes back within the grace after its successor was used', async () => {
    const session = await t.signIn();
    const second = (await refresh(session.refreshToken)).json().refreshToken as string;
    const third = await refresh(second);
    expect(third.statusCode).toBe(200);
    // The successor's use proves the first answer arrived: this copy is someone else's.
    const copy = await refresh(session.refreshToken);
    expect(copy.statusCode).toBe(401);
    expect(copy.json().error).toBe('session_expired');
    expect((await refresh(third.json().refreshToken)).statusCode).toBe(401);
  });

  it('should answer 400 with a sentence for a sign-in that sends no nonce, even when the token carries one', async () => {
    const res = await signInWith(await t.apple.token({ nonce: 'one' }), null);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'bad_request', message: "The field 'nonce' is missing or not valid." });
  });

  it('should refuse with 401 a nonce the token does not carry, or a token that carries none', async () => {
    for (const [token, nonce] of [
      [await t.apple.token({ nonce: 'one' }), 'two'],
      [await t.apple.token({ nonce: null }), 'one'],
    ] as const) {
      const res = await signInWith(token, nonce);
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('sign_in_refused');
    }
  });

  it('should revoke the whole session when a used refresh token comes back after the grace, so the newer token stops too', async () => {
    const session = await t.signIn();
    const thief = await refresh(session.refreshToken);
    expect(thief.statusCode).toBe(200);
    const newer = thief.json().refreshToken as string;
    pastTheGrace();
    const replay = await refresh(session.refreshToken);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error).toBe('session_expired');
    const afterRevocation = await refresh(newer);
    expect(afterRevocation.statusCode).toBe(401);
    expect(afterRevocation.json().error).toBe('session_expired');
    expect((await refresh(session.refreshToken)).statusCode).toBe(401);
  });

  it('should keep other sessions of the same runner when one session is revoked for reuse', async () => {
    const phone = await t.signIn('apple-sub-two-devices');
    const tablet = await t.signIn('apple-sub-two-devices');
    await refresh(phone.refreshToken);
    pastTheGrace();
    expect((await refresh(phone.refreshToken)).statusCode).toBe(401);
    expect((await refresh(tablet.refreshToken)).statusCode).toBe(200);
  });

  it('should refuse every runner route without a valid bearer token', async () => {
    const session = await t.signIn();
    for (const [method, url] of [
      ['GET', '/api/entries'],
      ['POST', '/api/entries'],
      ['DELETE', '/api/me'],
      ['POST', '/api/shares'],
    ] as const) {
      const none = await t.call(undefined, method, url, method === 'POST' ? {} : undefined);
      expect(none.statusCode, `${method} ${url}`).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer');
      const forged = await t.call({ ...session, accessToken: `${session.accessToken}x` }, method, url);
      expect(forged.statusCode).toBe(401);
    }
  });

  it('should answer 400 for a sign-in without an identity token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/apple', payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/identityToken/);
  });
});

describe('sign-in attempts', () => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    t = await startRunnerApp('sqlite', { SIGN_IN_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(() => t.close());

  it('should be limited per IP with a clear message and a Retry-After', async () => {
    const attempt = () => t.app.inject({ method: 'POST', url: '/api/auth/apple', payload: { identityToken: 'x'.repeat(40), nonce: FAKE_APPLE_NONCE } });
    for (let i = 0; i < 3; i++) expect((await attempt()).statusCode).toBe(401);
    const limited = await attempt();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'rate_limited', message: expect.stringMatching(/wait a minute/) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Other runner routes are not counted against it.
    expect((await t.app.inject({ url: '/api/races' })).statusCode).toBe(200);
  });
});

describe.each(BACKENDS)('sign-in and refresh attempts from one IPv6 /64, on %s', (kind) => {
  let t: RunnerTestApp;
  beforeAll(async () => {
    // The default limit (30 a minute), behind a proxy that names the client.
    t = await startRunnerApp(kind, { TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  it('should count every address of the /64 as one client, as every other limit does, and another /64 apart', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 40; i++) {
      const from = { 'x-forwarded-for': `2001:db8:47:1:${i.toString(16)}::${i}` };
      const url = i % 2 ? '/api/auth/refresh' : '/api/auth/apple';
      const payload = i % 2 ? { refreshToken: 'r'.repeat(40) } : { identityToken: 'x'.repeat(40), nonce: FAKE_APPLE_NONCE };
      statuses.push((await t.app.inject({ method: 'POST', url, headers: from, payload })).statusCode);
    }
    expect(statuses).toEqual([...Array(30).fill(401), ...Array(10).fill(429)]);
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      headers: { 'x-forwarded-for': '2001:db8:47:2::1' },
      payload: { refreshToken: 'r'.repeat(40) },
    });
    expect(other.statusCode).toBe(401);
  });
});
