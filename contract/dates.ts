/**
 * Dates as the site prints them, in American English, written out by hand (the recorder and the
 * keepsake write theirs in the sender's language the same way, src/i18n/format.ts): the first
 * toLocaleDateString on a page loads ICU's locale data, measured at 45–55 ms of main thread here
 * (about 200 ms on Lighthouse's slowed phone), the longest task of a first visit to a link.
 */
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;

/** The year, month (1-12) and day of '2025-08-31', read as written: no Date, so no time zone moves the day. */
export function isoDateParts(isoDate: string): { year: number; month: number; day: number } {
  const [year, month, day] = isoDate.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

/** 'Aug 31, 2025' from '2025-08-31': the race date as the spec prints it, whatever the visitor's time zone. */
export function formatRaceDate(isoDate: string): string {
  const { year, month, day } = isoDateParts(isoDate);
  return `${MONTHS[month - 1]!.slice(0, 3)} ${day}, ${year}`;
}

/** 'November 22, 2026': a day in the visitor's own time zone. */
export function formatLongDate(date: Date): string {
  return `${MONTHS[date.getMonth()]} ${date.getDate()}, ${date.getFullYear()}`;
}
