/**
 * Whether this phone can be told by push Chromium
 * and Firefox from any page; iPhone and iPad only in the Home Screen app (iOS 16.4+), so there the
 * control says how to get there instead of asking.
 */
export type PushSupport = 'ready' | 'install-first' | 'unsupported';

export interface PushPlatform {
  userAgent: string;
  /** navigator.platform and maxTouchPoints: iPadOS says it is a Mac, with a touch screen. */
  platform: string;
  maxTouchPoints: number;
  /** navigator.standalone (iPhone) or display-mode: standalone. */
  standalone: boolean;
  /** A service worker, PushManager and Notification are all there. */
  hasPush: boolean;
}

export function pushSupport(p: PushPlatform): PushSupport {
  const apple = /iPhone|iPad|iPod/.test(p.userAgent) || (p.platform === 'MacIntel' && p.maxTouchPoints > 1);
  if (apple && !p.standalone) return 'install-first';
  return p.hasPush ? 'ready' : 'unsupported';
}

/** This browser, as pushSupport reads it. */
export function thisPlatform(): PushPlatform {
  const nav = navigator as Navigator & { standalone?: boolean };
  return {
    userAgent: nav.userAgent,
    platform: nav.platform,
    maxTouchPoints: nav.maxTouchPoints,
    standalone: nav.standalone === true || window.matchMedia?.('(display-mode: standalone)').matches === true,
    hasPush: 'serviceWorker' in nav && 'PushManager' in window && 'Notification' in window,
  };
}
