/**
 * Push in Chromium on this machine: pushManager.subscribe needs
 * Google's push service, which this machine cannot reach, so the page gets a stand-in subscription
 * whose keys the stand-in push service made (stand-ins/pushService.ts); what that service decrypts
 * is handed to the real service worker with CDP ServiceWorker.deliverPushMessage, and the notices it
 * shows are read back with registration.getNotifications().
 */
import { expect, type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import type { StandInSubscription } from '../../../stand-ins/pushService';

/**
 * From the next page on, PushManager hands out `sub` (as a browser would after subscribe()) and
 * keeps the applicationServerKey the page gave it in window.__pushKey (base64url).
 */
export async function standInPushManager(context: BrowserContext, sub: StandInSubscription): Promise<void> {
  await context.addInitScript((s: StandInSubscription) => {
    const bytes = (b64: string) => Uint8Array.from(atob(b64.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const w = window as unknown as { __pushKey?: string };
    let current: unknown = null;
    PushManager.prototype.getSubscription = async () => current as PushSubscription | null;
    PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
      const key = new Uint8Array(options!.applicationServerKey as Uint8Array);
      w.__pushKey = btoa(String.fromCharCode(...key))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
      current = {
        endpoint: s.endpoint,
        expirationTime: null,
        options: { applicationServerKey: key.buffer, userVisibleOnly: true },
        getKey: (name: 'p256dh' | 'auth') => bytes(s.keys[name]).buffer,
        toJSON: () => ({ endpoint: s.endpoint, expirationTime: null, keys: s.keys }),
        unsubscribe: async () => ((current = null), true),
      };
      return current as PushSubscription;
    };
  }, sub);
}

/** The site's worker registration, as CDP names it. */
export async function workerRegistration(page: Page, origin: string): Promise<{ cdp: CDPSession; registrationId: string }> {
  const cdp = await page.context().newCDPSession(page);
  const found = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted);
      if (ours) resolve(ours.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  return { cdp, registrationId: await found };
}

/** What the page's worker shows now: each notice's title, tag and data. */
export function noticesShown(page: Page) {
  return page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, tag: n.tag, lang: n.lang, data: n.data as unknown })),
  );
}

/** Hands a push, as the stand-in service decrypted it, to the page's worker, and waits for its notice. */
export async function deliverPush(page: Page, origin: string, text: string): Promise<void> {
  const { cdp, registrationId } = await workerRegistration(page, origin);
  const before = (await noticesShown(page)).length;
  await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: text });
  await expect.poll(async () => (await noticesShown(page)).length).toBeGreaterThan(before);
  await cdp.detach();
}
