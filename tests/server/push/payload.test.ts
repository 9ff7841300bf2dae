/**
 * The push body is Declarative Web Push as WebKit's parser takes it (Safari 18.4+ shows
 * it without the worker): `web_push` 8030, a `notification` with a title and a `navigate` URL (here
 * always the site's own recorder), `app_badge` a whole number at the top level, nothing of the wrong
 * type; and every body, in every language and for the longest runner name, under 3 KB.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimedPush } from '../../../server/db/push-queue-store.js';
import { createTokenSeal } from '../../../server/devices/sealed.js';
import { messageOf, noticeOf } from '../../../server/push/notice.js';
import { LANGUAGES } from '../../../contract/languages.js';
import { MAX_PUSH_PAYLOAD_BYTES } from '../../../contract/push.js';

const ORIGIN = 'https://notes.example.com';
const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const seal = createTokenSeal(new TextEncoder().encode('a-session-secret-of-more-than-32-characters'));

/**
 * WebKit's rules for a declarative push (NotificationPayload and NotificationOptionsPayload parsing),
 * with navigate also held to this site: the reasons a body would not be shown by itself.
 */
function webkitRefusals(text: string, origin: string): string[] {
  const wrong: string[] = [];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return ['not JSON'];
  }
  if (body.web_push !== 8030) wrong.push('web_push is not 8030');
  const n = body.notification as Record<string, unknown> | undefined;
  if (typeof n !== 'object' || n === null || Array.isArray(n)) return [...wrong, 'no notification object'];
  if (typeof n.title !== 'string' || n.title.trim() === '') wrong.push('no title');
  if (typeof n.navigate !== 'string') wrong.push('no navigate');
  else if (!URL.canParse(n.navigate)) wrong.push('navigate is not an absolute URL');
  else if (new URL(n.navigate).origin !== origin) wrong.push('navigate is another site');
  for (const key of ['body', 'lang', 'tag', 'icon'] as const) if (key in n && typeof n[key] !== 'string') wrong.push(`${key} is not a string`);
  if ('dir' in n && !['auto', 'ltr', 'rtl'].includes(n.dir as string)) wrong.push('dir is not auto, ltr or rtl');
  if ('silent' in n && typeof n.silent !== 'boolean') wrong.push('silent is not a boolean');
  if ('app_badge' in n) wrong.push('app_badge inside notification');
  if ('app_badge' in body && !(Number.isSafeInteger(body.app_badge) && (body.app_badge as number) >= 0)) wrong.push('app_badge is not a whole number');
  if ('mutable' in body && typeof body.mutable !== 'boolean') wrong.push('mutable is not a boolean');
  return wrong;
}

const claimed = (over: Partial<ClaimedPush> = {}, lang = 'en'): ClaimedPush => ({
  id: 'delivery-1',
  owner: 'o',
  kind: 'heard',
  ref: 'note-1',
  marker: 'mi-20',
  attempts: 1,
  expiresAt: Date.now() + 60_000,
  subscription: { id: 'sub-1', endpoint: 'https://push.example/x', p256dh: 'p', auth: 'a', lang, linkId: 'link-1', sealedToken: seal.seal('link-1', TOKEN) },
  runnerName: 'Alex',
  linkRevoked: false,
  ...over,
});

describe('a push body', () => {
  it("should be a declarative push WebKit shows by itself, with the words in the phone's language and a tap to the recorder", () => {
    const heard = noticeOf(claimed({}, 'de'), seal, ORIGIN);
    expect(heard).toEqual({
      web_push: 8030,
      notification: {
        title: 'Alex hat deine Nachricht bei Meile 20 gehört',
        navigate: `${ORIGIN}/r/${TOKEN}`,
        lang: 'de',
        dir: 'auto',
        tag: 'heard:note-1',
        silent: false,
      },
      app_badge: 1,
    });
    const soon = noticeOf(claimed({ kind: 'soon', ref: 'finish', marker: 'finish' }), seal, ORIGIN);
    expect(soon.notification).toMatchObject({ title: 'Alex is about 10 minutes from the finish', tag: 'soon:sub-1:finish', lang: 'en' });
    // A language the phone asked in that we do not speak, a token sealed under another secret.
    const other = noticeOf(claimed({ subscription: { ...claimed().subscription, sealedToken: 'nonsense' } }, 'xx'), seal, ORIGIN);
    expect(other.notification).toMatchObject({ navigate: `${ORIGIN}/`, lang: 'en', title: 'Alex heard your note at Mile 20' });
    for (const push of [heard, soon, other]) expect(webkitRefusals(JSON.stringify(push), ORIGIN)).toEqual([]);
  });

  it('should stay under 3 KB for every language, kind and marker, with the longest name', () => {
    const longest = '🏃🏽‍♀️'.repeat(200) + 'x'.repeat(200);
    let largest = 0;
    for (const lang of LANGUAGES) {
      for (const kind of ['heard', 'soon'] as const) {
        for (const marker of ['mi-26', 'km-42', 'finish', 'somewhere-else']) {
          const push = claimed({ kind, marker, ref: kind === 'heard' ? '0f8fad5b-d9cb-469f-a165-70867728950e' : marker, runnerName: longest }, lang);
          const { payload } = messageOf(push, noticeOf(push, seal, 'https://a-rather-long-host-name-for-a-marathon.example.com:8443'));
          expect(webkitRefusals(payload, 'https://a-rather-long-host-name-for-a-marathon.example.com:8443')).toEqual([]);
          largest = Math.max(largest, Buffer.byteLength(payload));
        }
      }
    }
    expect(largest).toBeLessThan(MAX_PUSH_PAYLOAD_BYTES);
  });

  it('should be refused by the rules when it breaks one (the rules can fail)', () => {
    const good = noticeOf(claimed(), seal, ORIGIN);
    // The payload as a sender could get it wrong: any field of any type, or missing.
    type Loose = { web_push?: unknown; app_badge?: unknown; notification: Record<string, unknown> };
    const broken = (change: (p: Loose) => void) => {
      const copy = structuredClone(good) as unknown as Loose;
      change(copy);
      return webkitRefusals(JSON.stringify(copy), ORIGIN);
    };
    expect(broken((p) => delete p.notification.title)).toEqual(['no title']);
    expect(broken((p) => (p.notification.navigate = '/r/x'))).toEqual(['navigate is not an absolute URL']);
    expect(broken((p) => (p.notification.navigate = 'https://evil.example/r/x'))).toEqual(['navigate is another site']);
    expect(broken((p) => ((p.notification.app_badge = 1), delete p.app_badge))).toEqual(['app_badge inside notification']);
    expect(broken((p) => (p.web_push = '8030'))).toEqual(['web_push is not 8030']);
  });
});
