/**
 * The device cookie: a phone that opens a recorder link gets a cookie only this
 * server makes, the server remembers the link for that phone with its token sealed for that phone and
 * link, and every note the phone sends (whole or resumable) carries the phone's id, so it can be told
 * when that note is heard.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeviceCookies, DEVICE_COOKIE, DEVICE_COOKIE_DAYS, LOCAL_DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import { DEVICE_LINK_PHONES_MAX, NEW_PHONES_WINDOW_MS, REMEMBERED_FOR_MS } from '../../../server/db/device-store.js';
import { createDevices } from '../../../server/devices/index.js';
import { createDeviceLinkSeal, createTokenSeal } from '../../../server/devices/sealed.js';
import { openDatabase } from '../../../server/db/index.js';
import { linkIdOf } from '../../../server/links.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { creation, send } from '../support/resumable.js';
import { digestOf, fakeWebm, makeLink, putNote } from '../support/uploads.js';
import { deviceCookieOf, ISSUED } from './cookies.js';

const LIMITS = { maxPhones: DEVICE_LINK_PHONES_MAX, perWindow: 100, windowMs: NEW_PHONES_WINDOW_MS };
const cookieHeader = (value: string) => ({ cookie: `${LOCAL_DEVICE_COOKIE}=${value}` });

describe.each(BACKENDS)('the device cookie on %s', (kind) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  const idOf = (value: string) =>
    createDeviceCookies(t.backend.config.auth.sessionSecret, t.backend.config.publicUrl).idOf({
      cookies: { [LOCAL_DEVICE_COOKIE]: value },
      protocol: 'http',
      hostname: 'localhost',
    } as never)!;

  it('should give a phone opening a link over plain HTTP to this machine an HttpOnly, SameSite=Lax cookie for the site that lasts 400 days', async () => {
    const token = await makeLink(t.app.repo);
    const res = await t.app.inject({ url: `/api/r/${token}` });
    expect(res.statusCode).toBe(200);
    const cookie = deviceCookieOf(res.headers['set-cookie']);
    expect(cookie?.value).toMatch(ISSUED);
    expect(cookie?.attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/', `max-age=${DEVICE_COOKIE_DAYS * 24 * 3600}`]));
    expect(cookie?.attributes).not.toContain('secure');
  });

  it('should make the cookie a __Host- one (Secure, Path=/, no Domain) unless the request is plain HTTP on this machine', async () => {
    const token = await makeLink(t.app.repo);
    const local = (await t.app.inject({ url: `/api/r/${token}`, headers: { host: '127.0.0.1:8080' } })).headers['set-cookie'];
    const remote = (await t.app.inject({ url: `/api/r/${token}`, headers: { host: 'milenotes.example' } })).headers['set-cookie'];
    expect(deviceCookieOf(local)?.attributes).not.toContain('secure');
    expect(deviceCookieOf(local, DEVICE_COOKIE)).toBeUndefined();
    expect(deviceCookieOf(remote)).toBeUndefined();
    const secure = deviceCookieOf(remote, DEVICE_COOKIE);
    expect(DEVICE_COOKIE).toMatch(/^__Host-/);
    expect(secure?.value).toMatch(ISSUED);
    expect(secure?.attributes).toEqual(expect.arrayContaining(['secure', 'path=/', 'httponly', 'samesite=lax']));
    expect(secure?.attributes.filter((a) => a.startsWith('domain'))).toEqual([]);
  });

  it("should keep the phone's cookie on the next open and list every link the phone opened, the latest first", async () => {
    const [first, second] = [await makeLink(t.app.repo, 'chicago-2025', 'Alex'), await makeLink(t.app.repo, 'berlin-2025', 'Jo')];
    const value = deviceCookieOf((await t.app.inject({ url: `/api/r/${first}` })).headers['set-cookie'])!.value;
    const again = await t.app.inject({ url: `/api/r/${second}`, headers: cookieHeader(value) });
    expect(deviceCookieOf(again.headers['set-cookie'])?.value).toBe(value);

    const links = await t.app.repo.devices.linksOf(idOf(value));
    expect(links.map((l) => [l.runnerName, l.race.id])).toEqual([
      ['Jo', 'berlin-2025'],
      ['Alex', 'chicago-2025'],
    ]);
    const devices = createDevices(t.app.repo, t.backend.config.auth.sessionSecret, { publicUrl: t.backend.config.publicUrl, newPhonesPerHour: 100 });
    expect((await devices.linksOf(idOf(value))).map((l) => l.token)).toEqual([second, first]);
  });

  it("should write a phone's link again only once an hour, whatever an open recorder asks every minute", async () => {
    const token = await makeLink(t.app.repo);
    const device = `d-${randomUUID()}`;
    const opened = async () => (await t.app.repo.devices.linksOf(device))[0]!.openedAt;
    await t.app.repo.devices.remember(device, linkIdOf(token), 'sealed-1', 1_000_000, LIMITS);
    await t.app.repo.devices.remember(device, linkIdOf(token), 'sealed-2', 1_000_000 + REMEMBERED_FOR_MS - 1, LIMITS);
    expect(await opened()).toBe(1_000_000);
    await t.app.repo.devices.remember(device, linkIdOf(token), 'sealed-3', 1_000_000 + REMEMBERED_FOR_MS + 1, LIMITS);
    expect(await opened()).toBe(1_000_000 + REMEMBERED_FOR_MS + 1);
  });

  it('should store neither the cookie nor the token in the clear', async () => {
    const token = await makeLink(t.app.repo);
    const value = deviceCookieOf((await t.app.inject({ url: `/api/r/${token}` })).headers['set-cookie'])!.value;
    // The rows as the database holds them (the store's answer leaves the phone's id out).
    const db = openDatabase(t.backend.config);
    try {
      const rows = await db.all('SELECT * FROM device_links WHERE device_id = ?', [idOf(value)]);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(value);
      expect(JSON.stringify(rows)).not.toContain(token);
    } finally {
      await db.close();
    }
  });

  it('should give a new cookie for a malformed one and remember nothing under the bad value', async () => {
    const token = await makeLink(t.app.repo);
    const res = await t.app.inject({ url: `/api/r/${token}`, headers: cookieHeader('../../etc;passwd') });
    const value = deviceCookieOf(res.headers['set-cookie'])!.value;
    expect(value).toMatch(ISSUED);
    expect(await t.app.repo.devices.linksOf(idOf(value))).toHaveLength(1);
  });

  it('should not remember a revoked link', async () => {
    const token = await makeLink(t.app.repo);
    await t.app.repo.links.revoke(linkIdOf(token), new Date().toISOString());
    const res = await t.app.inject({ url: `/api/r/${token}` });
    expect(res.statusCode).toBe(404);
    expect(deviceCookieOf(res.headers['set-cookie'])).toBeUndefined();
  });

  it('should name the phone a whole note came from, and no phone when the request had no cookie', async () => {
    const token = await makeLink(t.app.repo);
    const value = deviceCookieOf((await t.app.inject({ url: `/api/r/${token}` })).headers['set-cookie'])!.value;
    const [mine, anonymous] = [randomUUID(), randomUUID()];
    const sent = await t.app.inject({
      method: 'PUT',
      url: `/api/r/${token}/notes/${mine}?marker=mi-13&from=Sam`,
      headers: { ...putNoteHeaders(fakeWebm(3000)), ...cookieHeader(value) },
      payload: fakeWebm(3000),
    });
    expect(sent.statusCode).toBe(201);
    expect((await putNote(t.app, { token, noteId: anonymous, body: fakeWebm(3001) })).statusCode).toBe(201);
    expect((await t.app.repo.notes.find(mine))?.deviceId).toBe(idOf(value));
    expect((await t.app.repo.notes.find(anonymous))?.deviceId).toBeNull();
  });

  it('should name the phone a resumable upload came from on the note it becomes', async () => {
    const token = await makeLink(t.app.repo);
    const value = deviceCookieOf((await t.app.inject({ url: `/api/r/${token}` })).headers['set-cookie'])!.value;
    const noteId = randomUUID();
    const request = creation(token, noteId, fakeWebm(5000));
    const answer = await send(base, { ...request, headers: { ...request.headers, ...cookieHeader(value) } });
    expect(answer.status).toBe(201);
    expect((await t.app.repo.notes.find(noteId))?.deviceId).toBe(idOf(value));
  });
});

function putNoteHeaders(body: Buffer): Record<string, string> {
  return { 'content-type': 'audio/webm;codecs=opus', 'content-digest': digestOf(body) };
}

describe("a device link's sealed token", () => {
  const seal = createDeviceLinkSeal(new TextEncoder().encode('x'.repeat(40)));

  it('should open to the token only for the same phone, link and secret', () => {
    const sealed = seal.seal('phone-a', 'link-a', 'the-token');
    expect(seal.open('phone-a', 'link-a', sealed)).toBe('the-token');
    expect(seal.open('phone-b', 'link-a', sealed)).toBeUndefined();
    expect(seal.open('phone-a', 'link-b', sealed)).toBeUndefined();
    expect(createDeviceLinkSeal(new TextEncoder().encode('y'.repeat(40))).open('phone-a', 'link-a', sealed)).toBeUndefined();
  });

  it("should not open what was sealed for another purpose (a push subscription's token, or a row of migration 12)", () => {
    const other = createTokenSeal(new TextEncoder().encode('x'.repeat(40)));
    expect(seal.open('phone-a', 'link-a', other.seal('link-a', 'the-token'))).toBeUndefined();
    expect(seal.open('phone-a', 'link-a', other.seal('device-link-token\0phone-a\0link-a', 'the-token'))).toBeUndefined();
  });
});

describe('a sealed token', () => {
  const seal = createTokenSeal(new TextEncoder().encode('x'.repeat(40)));

  it('should open to the token under the same secret and link', () => {
    expect(seal.open('link-a', seal.seal('link-a', 'the-token'))).toBe('the-token');
  });

  it('should not open under another link, another secret, or tampered', () => {
    const sealed = seal.seal('link-a', 'the-token');
    expect(seal.open('link-b', sealed)).toBeUndefined();
    expect(createTokenSeal(new TextEncoder().encode('y'.repeat(40))).open('link-a', sealed)).toBeUndefined();
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[14]! ^= 1;
    expect(seal.open('link-a', bytes.toString('base64url'))).toBeUndefined();
    expect(seal.open('link-a', 'short')).toBeUndefined();
  });
});
