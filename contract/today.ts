/**
 * 'Last updated' on the legal pages is the visitor's current date (as the client asked). The pages are
 * prerendered at build time, so this inline script fills the date in before first paint;
 * React renders the same text when it navigates there. The server allows exactly this
 * script in its Content-Security-Policy by hash. Both write the date as contract/dates.ts does.
 */
import { formatLongDate, MONTHS } from './dates.js';

export const TODAY_SCRIPT =
  `{const d=new Date(),m=${JSON.stringify(MONTHS)};` +
  `for(const e of document.querySelectorAll('[data-today]'))e.textContent=m[d.getMonth()]+' '+d.getDate()+', '+d.getFullYear()}`;

export function formatToday(now: Date = new Date()): string {
  return formatLongDate(now);
}
