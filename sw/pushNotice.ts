/// <reference lib="webworker" />
/**
 * Owns what the worker does with a push: the body is Declarative Web Push JSON
 * (contract/push.ts), which Safari 18.4+ shows without the worker; every other browser hands it
 * here, and the worker shows the same notice (the server's words, in the phone's language), sets
 * the badge, and a tap opens the recorder it names. It ALWAYS shows something for a push, inside
 * waitUntil, even one it cannot read: a browser stops sending to a worker that takes pushes
 * silently (WebKit after 3).
 */
import { DECLARATIVE_PUSH, type DeclarativePush } from '../contract/push.js';
import { RECORDER_PAGE_EXACT } from '../contract/paths.js';

declare const self: ServiceWorkerGlobalScope;

const ICON = '/icons/icon-192.png';
const PLAIN_TITLE = 'MileNotes';

/** Where a tap may go: a recorder of this site, else its home page (a path, never another site). */
export function noticeTarget(navigate: unknown, origin: string): string {
  if (typeof navigate !== 'string') return '/';
  try {
    const url = new URL(navigate, origin);
    return url.origin === origin && RECORDER_PAGE_EXACT.test(url.pathname) && !url.search && !url.hash ? url.pathname : '/';
  } catch {
    return '/';
  }
}

/** The push as the server sends it, or undefined for anything else. */
export function readPush(data: unknown): DeclarativePush | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const push = data as Partial<DeclarativePush>;
  const n = push.notification;
  const ok =
    push.web_push === DECLARATIVE_PUSH &&
    typeof n === 'object' &&
    n !== null &&
    typeof n.title === 'string' &&
    n.title !== '' &&
    typeof n.navigate === 'string';
  return ok ? (push as DeclarativePush) : undefined;
}

function parsed(data: PushMessageData | null): unknown {
  try {
    return data?.json();
  } catch {
    return undefined;
  }
}

/** What showNotification is given for a push: one notice per tag, so a push sent twice shows once. */
export function noticeFor(data: unknown, origin: string): { title: string; options: NotificationOptions; badge?: number } {
  const push = readPush(data);
  if (!push) return { title: PLAIN_TITLE, options: { icon: ICON, data: { url: '/' } } };
  const n = push.notification;
  const options: NotificationOptions = { icon: ICON, data: { url: noticeTarget(n.navigate, origin) } };
  if (typeof n.body === 'string') options.body = n.body;
  if (typeof n.lang === 'string') options.lang = n.lang;
  if (typeof n.tag === 'string') options.tag = n.tag;
  const badge = push.app_badge;
  return { title: n.title.slice(0, 200), options, ...(Number.isSafeInteger(badge) && badge >= 0 && { badge }) };
}

/** Shows the push as a notice and sets the badge; the notice is shown whatever the badge does. */
export async function showNotice(
  registration: ServiceWorkerRegistration,
  data: PushMessageData | null,
  origin: string,
  nav?: Partial<NavigatorBadge>,
): Promise<void> {
  let notice: ReturnType<typeof noticeFor>;
  try {
    notice = noticeFor(parsed(data), origin);
  } catch {
    notice = noticeFor(undefined, origin);
  }
  const badge = notice.badge !== undefined && nav?.setAppBadge ? nav.setAppBadge(notice.badge).catch(() => undefined) : undefined;
  try {
    await registration.showNotification(notice.title, notice.options);
  } catch {
    // Options the browser refused (a language tag it does not take): the plain notice instead.
    await registration.showNotification(PLAIN_TITLE, { icon: ICON, data: notice.options.data as unknown });
  }
  await badge;
}

/** A tap: the badge goes, and the recorder already open comes forward, else it opens. */
export async function openNotice(clients: Clients, origin: string, data: unknown, nav?: Partial<NavigatorBadge>): Promise<void> {
  await nav?.clearAppBadge?.().catch(() => undefined);
  const target = new URL(noticeTarget((data as { url?: unknown } | null)?.url, origin), origin).href;
  const open = (await clients.matchAll({ type: 'window', includeUncontrolled: true })) as WindowClient[];
  const same = open.find((client) => client.url === target);
  if (same) {
    await same.focus();
    return;
  }
  await clients.openWindow(target);
}

export function installPush(): void {
  self.addEventListener('push', (event) => event.waitUntil(showNotice(self.registration, event.data, self.location.origin, self.navigator)));
  self.addEventListener('notificationclick', (event) => {
    event.notification.close();
    event.waitUntil(openNotice(self.clients, self.location.origin, event.notification.data, self.navigator));
  });
}
