/**
 * The browser's side of a push subscription: notification permission, asked for only
 * when the person taps (never on load: browsers quiet or block a prompt nobody asked for), and this
 * browser's PushSubscription made with the server's key, one for every link on this phone.
 */
import type { PushSubscribe } from '../../../contract/pushApi.js';

export type BrowserSubscription = Pick<PushSubscribe, 'endpoint' | 'keys'>;

const bytesOf = (base64url: string) => Uint8Array.from(atob(base64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

function sameKey(key: ArrayBuffer | null | undefined, publicKey: string): boolean {
  if (!key) return false;
  const a = new Uint8Array(key);
  const b = bytesOf(publicKey);
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * This browser's subscription for the server's key. `fromTap`: the person just tapped, so the
 * permission may be asked for; otherwise only a permission already given is used. 'denied' when
 * notifications are not allowed.
 */
export async function browserSubscription(publicKey: string, fromTap: boolean): Promise<BrowserSubscription | 'denied'> {
  let permission = Notification.permission;
  if (permission === 'default' && fromTap) permission = await Notification.requestPermission();
  if (permission !== 'granted') return 'denied';
  const registration = await navigator.serviceWorker.ready;
  let subscription = await registration.pushManager.getSubscription();
  // One made for another key (the server's keys changed) cannot carry ours: it is replaced.
  if (subscription && !sameKey(subscription.options.applicationServerKey, publicKey)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytesOf(publicKey) });
  const json = subscription.toJSON();
  return { endpoint: json.endpoint ?? subscription.endpoint, keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' } };
}
