/** Registers the service worker from the site root (SPEC §2); the outcome is only logged. */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) {
    console.info('Service worker not supported in this browser');
    return;
  }
  const register = () =>
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(
      (registration) => console.info('Service worker registered with scope', registration.scope),
      (error: unknown) => console.error('Service worker registration failed', error),
    );
  if (document.readyState === 'complete') void register();
  else window.addEventListener('load', () => void register(), { once: true });
}
