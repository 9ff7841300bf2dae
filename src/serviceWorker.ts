import type { CacheLaterMessage } from './shared/messages';

/**
 * Registers the service worker from the site root (SPEC §2); the outcome is only logged.
 * A marketing page then asks the worker to cache the rest of the site (pictures and such) for
 * offline use; the recorder never does, so a friend on one bar spends nothing on pictures.
 */
export function registerServiceWorker({ cacheRest }: { cacheRest: boolean }): void {
  if (!('serviceWorker' in navigator)) {
    console.info('Service worker not supported in this browser');
    return;
  }
  const register = () =>
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(
      (registration) => {
        console.info('Service worker registered with scope', registration.scope);
        if (cacheRest) void navigator.serviceWorker.ready.then((ready) => ready.active?.postMessage({ type: 'cache-later' } satisfies CacheLaterMessage));
      },
      (error: unknown) => console.error('Service worker registration failed', error),
    );
  if (document.readyState === 'complete') void register();
  else window.addEventListener('load', () => void register(), { once: true });
}
