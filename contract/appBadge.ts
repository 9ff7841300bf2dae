/**
 * The hero's App Store badge as HTML: the one renderer of it. The build writes the badge of a site
 * with no App Store address into the prerendered page (src/pages/home/Hero.tsx), and the server
 * writes the badge for its APP_STORE_URL into that same place (server/routes/home-page.ts). It is a
 * link only when there is a store page to link to; until then it says the app is coming, and leads
 * nowhere. No React here, as for the race cards.
 */
import { escapeHtml } from './raceCards.js';

/** Around the badge in the built page, so the server finds the part it replaces. */
export const APP_BADGE_START = '<!--app-badge-->';
export const APP_BADGE_END = '<!--/app-badge-->';

/** The place on the home page that tells where the app is: other pages' headers link here. */
export const APP_BADGE_ID = 'app';

/** A phone, drawn as the store badge's picture draws it. */
const PHONE =
  '<svg class="app-badge__icon" viewBox="0 0 24 32" width="20" height="28" aria-hidden="true" focusable="false">' +
  '<rect x="2" y="2" width="20" height="28" rx="4"/><path d="M9 25h6"/></svg>';

export function appBadgeHtml(appStoreUrl: string | undefined): string {
  const badge = appStoreUrl
    ? `<a class="app-badge" id="${APP_BADGE_ID}" href="${escapeHtml(appStoreUrl)}">` +
      '<img src="/badges/app-store.svg" alt="Download on the App Store" width="150" height="50"/></a>'
    : `<p class="app-badge app-badge--soon" id="${APP_BADGE_ID}">${PHONE}` +
      '<span class="app-badge__text"><span class="app-badge__small">Coming soon to the</span> <span class="app-badge__big">App Store</span></span></p>';
  return `${APP_BADGE_START}${badge}${APP_BADGE_END}`;
}
