import { describe, expect, it } from 'vitest';
import { formatLongDate, formatRaceDate } from '../../contract/dates.js';
import { formatToday, TODAY_SCRIPT } from '../../contract/today.js';

const isoDay = (year: number, month: number, day: number) => `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

describe('dates written by hand, as Intl writes them in American English', () => {
  it('should write a race date as "Aug 31, 2025" for every month, first and last days alike', () => {
    for (let month = 1; month <= 12; month++) {
      for (const day of [1, 9, 10, 28]) {
        const iso = isoDay(2025, month, day);
        const intl = new Date(`${iso}T12:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
        expect(formatRaceDate(iso), iso).toBe(intl);
      }
    }
    expect(formatRaceDate('2025-09-21')).toBe('Sep 21, 2025');
  });

  it("should write today in the visitor's time zone as 'November 22, 2026'", () => {
    for (let month = 0; month < 12; month++) {
      // Just after local midnight and just before the next: the local day, whatever UTC says.
      for (const date of [new Date(2026, month, 1, 0, 5), new Date(2026, month, 30, 23, 55)]) {
        expect(formatLongDate(date)).toBe(date.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' }));
      }
    }
    expect(formatToday(new Date(2026, 10, 22, 9))).toBe('November 22, 2026');
  });

  it("should have the legal pages' inline script write the same text as the page renders", () => {
    const elements = [{ textContent: '' }, { textContent: '' }];
    const document = { querySelectorAll: (selector: string) => (selector === '[data-today]' ? elements : []) };
    new Function('document', TODAY_SCRIPT)(document);
    expect(elements.map((e) => e.textContent)).toEqual([formatToday(), formatToday()]);
  });
});
