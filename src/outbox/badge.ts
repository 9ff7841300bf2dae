/**
 * Owns the app icon's badge: the number of notes on this phone not yet delivered (saved
 * and waiting, being sent, or needing the person), cleared at 0, so a friend who closes the app sees
 * that a note has not gone. The page calls it when its outbox changes, the service worker after a
 * replay. Where the Badging API is missing (Safari tabs, Firefox) nothing happens; on iPhone it
 * counts only in the installed app with notifications allowed, and a refusal there is not an error.
 */
import type { OutboxNote } from './notes.js';
import { allNotes } from './index.js';

/** What a window's or a worker's navigator has of the Badging API, when it has it. */
export interface BadgeNavigator {
  setAppBadge?: (contents?: number) => Promise<void>;
  clearAppBadge?: () => Promise<void>;
}

/** The notes the badge counts: every one the server has not confirmed. */
export const notDelivered = (notes: readonly Pick<OutboxNote, 'state'>[]): number => notes.filter((n) => n.state !== 'delivered').length;

/** How many notes on this phone, for any runner, are not delivered yet. */
export const notesNotDelivered = async (): Promise<number> => notDelivered(await allNotes());

/** Sets the badge to the notes not yet delivered, or clears it; the count, or undefined where there is no badge. Never rejects. */
export async function showWaitingOnBadge(nav: BadgeNavigator | undefined = globalThis.navigator as BadgeNavigator | undefined): Promise<number | undefined> {
  if (typeof nav?.setAppBadge !== 'function') return undefined;
  try {
    const count = await notesNotDelivered();
    if (count > 0) await nav.setAppBadge(count);
    else if (typeof nav.clearAppBadge === 'function') await nav.clearAppBadge();
    else await nav.setAppBadge(0);
    return count;
  } catch {
    // No permission (iPhone without notifications), or the outbox could not be read: the badge stays as it was.
    return undefined;
  }
}
