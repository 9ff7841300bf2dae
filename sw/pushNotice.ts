/// <reference lib="webworker" />
/**
 * Owns what the worker does with a push (issue 36): the notice shown, in the language the phone
 * subscribed in ("Alex heard your note at Mile 20"), and a tap opening that link's recorder. The
 * words are the catalogues' notice blocks only (src/recorder/i18n), never a whole catalogue. A push
 * the worker cannot read still shows a plain notice: a browser may stop sending to a worker that
 * takes a push without showing anything.
 */
import { deNotices } from '../src/recorder/i18n/de.js';
import { enNotices, type Notices } from '../src/recorder/i18n/en.js';
import { esNotices } from '../src/recorder/i18n/es.js';
import { frNotices } from '../src/recorder/i18n/fr.js';
import { ALERT_LEAD_MINUTES, PUSH_LANGUAGES, type PushLang, type PushNotice } from '../src/shared/push.js';

declare const self: ServiceWorkerGlobalScope;

const NOTICES: Record<PushLang, Notices> = { en: enNotices, de: deNotices, es: esNotices, fr: frNotices };
const RECORDER_PATH = /^\/r\/[A-Za-z0-9_-]{22,64}$/;
const ICON = '/icons/icon-192.png';

/** The notice the server sent, or undefined for anything else. */
export function readNotice(data: unknown): PushNotice | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const n = data as Partial<PushNotice>;
  const ok = n.v === 1 && (n.kind === 'heard' || n.kind === 'soon') && typeof n.runner === 'string' && typeof n.marker === 'string' && typeof n.url === 'string';
  return ok ? (n as PushNotice) : undefined;
}

const fill = (sentence: string, values: Record<string, string | number>) => sentence.replace(/\{(\w+)\}/g, (whole, name: string) => String(values[name] ?? whole));

/** The notice's one line, in its language (English for a language we do not speak). */
export function noticeTitle(notice: PushNotice): string {
  const words = NOTICES[(PUSH_LANGUAGES as readonly string[]).includes(notice.lang) ? notice.lang : 'en'];
  const marker = /^(mi|km)-(\d+)$/.exec(notice.marker);
  const place = notice.marker === 'finish' ? 'finish' : (marker?.[1] as 'mi' | 'km' | undefined);
  if (!place) return notice.runner;
  return fill(words[`notice.${notice.kind}.${place}`], { runner: notice.runner, n: marker?.[2] ?? '', minutes: ALERT_LEAD_MINUTES });
}

/** Where a tap goes: the recorder the notice names, or the home page for anything else. */
export const noticeTarget = (data: unknown): string => {
  const url = (data as { url?: unknown } | null)?.url;
  return typeof url === 'string' && RECORDER_PATH.test(url) ? url : '/';
};

/** Shows the push as a notice; one per note (or per marker alert), so a push sent twice shows once. */
export function showNotice(registration: ServiceWorkerRegistration, data: PushMessageData | null): Promise<void> {
  let notice: PushNotice | undefined;
  try {
    notice = readNotice(data?.json());
  } catch {
    notice = undefined;
  }
  if (!notice) return registration.showNotification('MileNotes', { icon: ICON });
  const tag = notice.kind === 'heard' ? `heard:${notice.note ?? notice.marker}` : `soon:${notice.url}:${notice.marker}`;
  return registration.showNotification(noticeTitle(notice), { tag, lang: notice.lang, icon: ICON, data: { url: noticeTarget(notice) } });
}

/** A tap: the recorder already open comes forward, else it opens. */
export async function openNotice(clients: Clients, origin: string, data: unknown): Promise<void> {
  const target = new URL(noticeTarget(data), origin).href;
  const open = (await clients.matchAll({ type: 'window', includeUncontrolled: true })) as WindowClient[];
  const same = open.find((client) => client.url === target);
  if (same) {
    await same.focus();
    return;
  }
  await clients.openWindow(target);
}

export function installPush(): void {
  self.addEventListener('push', (event) => event.waitUntil(showNotice(self.registration, event.data)));
  self.addEventListener('notificationclick', (event) => {
    event.notification.close();
    event.waitUntil(openNotice(self.clients, self.location.origin, event.notification.data));
  });
}
