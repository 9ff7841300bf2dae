/**
 * Owns Chromium's install prompt: `beforeinstallprompt` is kept from the moment the
 * shell's script runs (src/main.ts imports this first, before any screen's chunk loads), and the
 * browser's own mini-infobar is held back, so installing is offered at the right moment (after the
 * person's first note is sent: src/recorder/installOffer.ts) and from a tap, as Chromium requires.
 * Safari and Firefox never fire the event; there this module keeps nothing.
 */

/** Chromium's BeforeInstallPromptEvent, which TypeScript's DOM library does not describe. */
export interface InstallPromptEvent extends Event {
  prompt(): Promise<unknown>;
  readonly userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

let kept: InstallPromptEvent | undefined;
const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};

/** Whether the browser offered to install the site and the offer is still kept. */
export const canPromptInstall = (): boolean => kept !== undefined;

/** Called when the kept offer comes or goes; returns the unsubscribe (useSyncExternalStore's shape). */
export function subscribeInstallPrompt(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/**
 * Shows the browser's install dialog; call it from a tap. The event can be used once, so it is let
 * go whatever the person answers. 'unavailable' when no offer is kept.
 */
export async function promptInstall(): Promise<'accepted' | 'dismissed' | 'unavailable'> {
  const event = kept;
  if (!event) return 'unavailable';
  kept = undefined;
  changed();
  await event.prompt();
  return (await event.userChoice).outcome;
}

/** Starts keeping the offer; the shell calls it once. */
export function keepInstallPrompt(target: Pick<Window, 'addEventListener'> = window): void {
  target.addEventListener('beforeinstallprompt', (event) => {
    event.preventDefault();
    kept = event as InstallPromptEvent;
    changed();
  });
  target.addEventListener('appinstalled', () => {
    kept = undefined;
    changed();
  });
}
