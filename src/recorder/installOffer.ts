/**
 * Owns when the recorder offers to install MileNotes, and the person's "Not now". The
 * offer comes after the person's first note is sent (delivered: the server has it), never before,
 * never inside the installed app, never on a desktop:
 * - Chromium on a phone: the kept `beforeinstallprompt` (src/installPrompt.ts), offered as a button;
 * - Safari on an iPhone or iPad: a hint naming iOS's own words (Share, then Add to Home Screen),
 *   since there installing is what makes being told possible at all (Web Push works only in the
 *   installed app), and the installed app cannot see Safari's outbox: while notes still wait here,
 *   the hint says they go from Safari.
 * No React and no browser globals: useInstallOffer gives it the browser's facts.
 */

export type InstallOffer =
  | { kind: 'none' }
  /** Chromium kept the browser's offer: a button shows its dialog. */
  | { kind: 'prompt' }
  /** iPhone Safari: the hint; `waiting` notes are still in Safari's outbox and go from Safari. */
  | { kind: 'ios'; waiting: number };

export interface InstallFacts {
  userAgent: string;
  /** navigator.maxTouchPoints: an iPad's Safari says 'Macintosh' and has a touch screen. */
  maxTouchPoints: number;
  /** Running as the installed app: display-mode standalone (or fullscreen, minimal-ui), or iOS's navigator.standalone. */
  installed: boolean;
  /** Chromium offered to install and the offer is kept. */
  canPrompt: boolean;
  /** The person said "Not now" (or installed through our offer) before. */
  dismissed: boolean;
  /** A note of this person reached the server. */
  delivered: boolean;
  /** Notes on this phone not delivered yet. */
  waiting: number;
}

/** An iPhone, iPod or iPad (iPadOS Safari reads as a Mac, but a Mac has no touch screen). */
export const isAppleMobile = (ua: string, maxTouchPoints: number): boolean => /iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && maxTouchPoints > 1);

/**
 * A phone or tablet, by the user agent: Android (a phone's says 'Mobile', a tablet's not; both
 * count), or an Apple mobile. Anything else is a desktop, where installing a recorder of voice notes
 * for a runner on their phone is not worth a word. (navigator.userAgentData.mobile says the same in
 * Chromium, but not in other engines, and not for tablets.)
 */
export const isMobile = (ua: string, maxTouchPoints: number): boolean => /Android/.test(ua) || isAppleMobile(ua, maxTouchPoints);

/** Safari itself, not Chrome, Firefox, Edge or Opera on iOS, nor an app's own web view (which has no Share → Add to Home Screen). */
const isIosSafari = (ua: string, maxTouchPoints: number): boolean =>
  isAppleMobile(ua, maxTouchPoints) && /Version\/[\d.]+.*Safari\//.test(ua) && !/CriOS|FxiOS|EdgiOS|OPiOS/.test(ua);

export function installOfferFor(facts: InstallFacts): InstallOffer {
  if (!facts.delivered || facts.installed || facts.dismissed || !isMobile(facts.userAgent, facts.maxTouchPoints)) return { kind: 'none' };
  if (facts.canPrompt) return { kind: 'prompt' };
  if (isIosSafari(facts.userAgent, facts.maxTouchPoints)) return { kind: 'ios', waiting: facts.waiting };
  return { kind: 'none' };
}

/** Where "Not now" is kept: the offer stays away on this phone from then on. */
export const INSTALL_DISMISSED_KEY = 'milenotes.installOffer';

export function offerDismissed(storage: Pick<Storage, 'getItem'> | undefined): boolean {
  try {
    return storage?.getItem(INSTALL_DISMISSED_KEY) === 'dismissed';
  } catch {
    return false;
  }
}

export function dismissOffer(storage: Pick<Storage, 'setItem'> | undefined): void {
  try {
    storage?.setItem(INSTALL_DISMISSED_KEY, 'dismissed');
  } catch {
    // Not kept (storage turned off): the offer stays away for this visit only.
  }
}
