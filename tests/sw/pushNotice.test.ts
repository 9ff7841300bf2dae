/** What the worker shows for a push and where a tap goes (sw/pushNotice.ts): the server's declarative push, and a notice for anything else. */
import { describe, expect, it, vi } from 'vitest';
import { noticeTarget, openNotice, readPush, showNotice } from '../../sw/pushNotice.js';
import type { DeclarativePush } from '../../contract/push.js';

const ORIGIN = 'https://m.test';
const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const push = (navigate = `${ORIGIN}/r/${TOKEN}`): DeclarativePush => ({
  web_push: 8030,
  notification: { title: 'Alex hat deine Nachricht bei Meile 20 gehört', navigate, lang: 'de', dir: 'auto', tag: 'heard:n1', silent: false },
  app_badge: 1,
});
const data = (value: unknown) => ({ json: () => (typeof value === 'function' ? (value as () => unknown)() : value) }) as unknown as PushMessageData;

describe('a push notice', () => {
  it('should open only a recorder of this site, whatever else the push says', () => {
    expect(noticeTarget(`${ORIGIN}/r/${TOKEN}`, ORIGIN)).toBe(`/r/${TOKEN}`);
    for (const url of [
      `https://evil.example/r/${TOKEN}`,
      `//evil.example/r/${TOKEN}`,
      `${ORIGIN}/r/${TOKEN}/../../admin`,
      `${ORIGIN}/r/${TOKEN}?x=1`,
      'javascript:alert(1)',
      undefined,
      7,
    ]) {
      expect(noticeTarget(url, ORIGIN)).toBe('/');
    }
    expect(readPush({ ...push(), web_push: 8031 })).toBeUndefined();
    expect(readPush({ ...push(), notification: { ...push().notification, title: '' } })).toBeUndefined();
    expect(readPush('text')).toBeUndefined();
  });

  it('should show every push, one notice per tag with the badge set, and a plain notice for one it cannot read', async () => {
    const showNotification = vi.fn(async () => undefined);
    const setAppBadge = vi.fn(async () => undefined);
    const registration = { showNotification } as unknown as ServiceWorkerRegistration;
    await showNotice(registration, data(push()), ORIGIN, { setAppBadge });
    await showNotice(
      registration,
      data(() => JSON.parse('not json')),
      ORIGIN,
      { setAppBadge },
    );
    await showNotice(registration, null, ORIGIN);
    await showNotice(registration, data({ v: 1, kind: 'heard', runner: 'Alex' }), ORIGIN);
    const plain = ['MileNotes', { icon: '/icons/icon-192.png', data: { url: '/' } }];
    expect(showNotification.mock.calls).toEqual([
      ['Alex hat deine Nachricht bei Meile 20 gehört', { tag: 'heard:n1', lang: 'de', icon: '/icons/icon-192.png', data: { url: `/r/${TOKEN}` } }],
      plain,
      plain,
      plain,
    ]);
    expect(setAppBadge.mock.calls).toEqual([[1]]);
  });

  it('should still show a notice when the browser refuses its options or the badge', async () => {
    const showNotification = vi.fn(async (_title: string, options?: NotificationOptions) => {
      if (options?.lang) throw new TypeError('bad options');
    });
    const registration = { showNotification } as unknown as ServiceWorkerRegistration;
    await showNotice(registration, data(push()), ORIGIN, { setAppBadge: () => Promise.reject(new Error('no badge')) });
    expect(showNotification.mock.calls.at(-1)).toEqual(['MileNotes', { icon: '/icons/icon-192.png', data: { url: `/r/${TOKEN}` } }]);
  });

  it('should bring the open recorder forward on a tap, or open it, and clear the badge', async () => {
    const focus = vi.fn(async () => undefined);
    const openWindow = vi.fn(async () => null);
    const clients = (open: string[]) => ({ matchAll: async () => open.map((url) => ({ url, focus })), openWindow }) as unknown as Clients;
    await openNotice(clients([`${ORIGIN}/r/${TOKEN}`]), ORIGIN, { url: `/r/${TOKEN}` });
    expect([focus.mock.calls.length, openWindow.mock.calls.length]).toEqual([1, 0]);
    const clearAppBadge = vi.fn(async () => undefined);
    await openNotice(clients([`${ORIGIN}/`]), ORIGIN, { url: `/r/${TOKEN}` }, { clearAppBadge });
    expect(openWindow.mock.calls).toEqual([[`${ORIGIN}/r/${TOKEN}`]]);
    expect(clearAppBadge).toHaveBeenCalledTimes(1);
  });
});
