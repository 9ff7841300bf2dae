/** What the worker shows for a push and where a tap goes (sw/pushNotice.ts), in each language. */
import { describe, expect, it, vi } from 'vitest';
import { noticeTarget, noticeTitle, openNotice, readNotice, showNotice } from '../../sw/pushNotice.js';
import type { PushNotice } from '../../src/shared/push.js';

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const heard = (lang: PushNotice['lang'], marker = 'mi-20'): PushNotice => ({ v: 1, kind: 'heard', runner: 'Alex', marker, note: 'n1', url: `/r/${TOKEN}`, lang });

describe('a push notice', () => {
  it("should say the runner heard the note at the marker, in the sender's language", () => {
    expect(noticeTitle(heard('en'))).toBe('Alex heard your note at Mile 20');
    expect(noticeTitle(heard('de'))).toBe('Alex hat deine Nachricht bei Meile 20 gehört');
    expect(noticeTitle(heard('fr', 'km-30'))).toBe('Alex a entendu votre message au kilomètre 30');
    expect(noticeTitle(heard('es', 'finish'))).toBe('Alex escuchó tu mensaje en la meta');
    expect(noticeTitle({ ...heard('en'), kind: 'soon', marker: 'finish' })).toBe('Alex is about 10 minutes from the finish');
    expect(noticeTitle({ ...heard('xx' as never), kind: 'soon' })).toBe('Alex is about 10 minutes from Mile 20');
  });

  it('should open only a recorder path, whatever else the data says', () => {
    expect(noticeTarget(heard('en'))).toBe(`/r/${TOKEN}`);
    for (const url of ['https://evil.example/', '//evil.example/r/x', `/r/${TOKEN}/../../admin`, 'javascript:alert(1)', undefined]) expect(noticeTarget({ url })).toBe('/');
    expect(readNotice({ v: 2, kind: 'heard' })).toBeUndefined();
    expect(readNotice('text')).toBeUndefined();
  });

  it('should show one notice per note, and a plain one for a push it cannot read', async () => {
    const showNotification = vi.fn(async () => undefined);
    const registration = { showNotification } as unknown as ServiceWorkerRegistration;
    await showNotice(registration, { json: () => heard('en') } as unknown as PushMessageData);
    await showNotice(registration, { json: () => JSON.parse('not json') } as unknown as PushMessageData);
    expect(showNotification.mock.calls).toEqual([
      ['Alex heard your note at Mile 20', { tag: 'heard:n1', lang: 'en', icon: '/icons/icon-192.png', data: { url: `/r/${TOKEN}` } }],
      ['MileNotes', { icon: '/icons/icon-192.png' }],
    ]);
  });

  it('should bring the open recorder forward on a tap, or open it', async () => {
    const focus = vi.fn(async () => undefined);
    const openWindow = vi.fn(async () => null);
    const clients = (open: string[]) => ({ matchAll: async () => open.map((url) => ({ url, focus })), openWindow }) as unknown as Clients;
    await openNotice(clients([`https://m.test/r/${TOKEN}`]), 'https://m.test', { url: `/r/${TOKEN}` });
    expect([focus.mock.calls.length, openWindow.mock.calls.length]).toEqual([1, 0]);
    await openNotice(clients(['https://m.test/']), 'https://m.test', { url: `/r/${TOKEN}` });
    expect(openWindow.mock.calls).toEqual([[`https://m.test/r/${TOKEN}`]]);
  });
});
