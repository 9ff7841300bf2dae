import { describe, expect, it } from 'vitest';
import de from '../../../src/i18n/de.js';
import { en as enCore, type Catalogue } from '../../../src/i18n/en.js';
import { enHome } from '../../../src/i18n/enHome.js';
import { enKeepsake } from '../../../src/i18n/enKeepsake.js';
import { enPush } from '../../../src/i18n/enPush.js';
import es from '../../../src/i18n/es.js';
import { clockTime, markerName, plural, raceDate, refusal, translator } from '../../../src/i18n/format.js';
import fr from '../../../src/i18n/fr.js';
import { LANGUAGES, type Lang } from '../../../contract/languages.js';
import { formatRaceDate } from '../../../contract/dates.js';
import { MAX_NOTE_BYTES } from '../../../contract/limits.js';
import { fill } from '../../../contract/words.js';
import { markerLabel, markersFor } from '../../../contract/markers.js';

/** All of English: the recorder's part and those that come with other chunks. */
const en = { ...enCore, ...enPush, ...enHome, ...enKeepsake };

const CATALOGUES: Record<Lang, Catalogue> = { en, de, es, fr };
const LOCALES: Record<Lang, string> = { en: 'en-US', de: 'de-DE', es: 'es-ES', fr: 'fr-FR' };
const isoDay = (month: number, day: number) => `2025-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
/** Intl puts a narrow no-break space before AM/PM and no-break spaces in places; we write plain spaces there. */
const plainSpaces = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('marker names in each language, from the marker id', () => {
  it('should name miles, kilometres and the finish as each language does', () => {
    const names = (id: string) => LANGUAGES.map((lang) => markerName(CATALOGUES[lang], id));
    expect(names('mi-20')).toEqual(['Mile 20', 'Meile 20', 'Milla 20', 'Mille 20']);
    expect(names('km-20')).toEqual(['20 km', '20 km', '20 km', '20 km']);
    expect(names('finish')).toEqual(['Finish', 'Ziel', 'Meta', 'Arrivée']);
  });

  it("should name every marker a race can have, in English exactly as the server's markerLabel does", () => {
    for (const { id } of markersFor(['mi', 'km'])) {
      expect(markerName(en, id)).toBe(markerLabel(id));
      for (const lang of LANGUAGES) expect(markerName(CATALOGUES[lang], id), `${lang} ${id}`).toMatch(/\S/);
    }
  });

  it('should know no name for an id no race has, so the caller shows the label the server gave', () => {
    for (const id of ['mi-', 'km-x', 'Finish', 'mile-3', '']) expect(markerName(de, id)).toBeUndefined();
  });
});

describe('race dates written by hand in each language', () => {
  it("should write English as the site does everywhere ('Oct 12, 2025')", () => {
    for (let month = 1; month <= 12; month++) expect(raceDate(en, isoDay(month, 12))).toBe(formatRaceDate(isoDay(month, 12)));
  });

  it.each(['de', 'es', 'fr'] as const)('should write %s as Intl writes a long date, for every month', (lang) => {
    for (let month = 1; month <= 12; month++) {
      for (const day of [2, 9, 10, 28]) {
        const iso = isoDay(month, day);
        const intl = new Date(`${iso}T12:00:00Z`).toLocaleDateString(LOCALES[lang], { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
        expect(raceDate(CATALOGUES[lang], iso), iso).toBe(plainSpaces(intl));
      }
    }
  });

  it('should write the first of the month the way each language does', () => {
    expect(LANGUAGES.map((lang) => raceDate(CATALOGUES[lang], '2025-10-01'))).toEqual([
      'Oct 1, 2025',
      '1. Oktober 2025',
      '1 de octubre de 2025',
      '1er octobre 2025',
    ]);
  });
});

describe('clock times written by hand in each language', () => {
  it.each(LANGUAGES)('should write %s as Intl writes hours and minutes, at every hour', (lang) => {
    for (let hour = 0; hour < 24; hour++) {
      const at = new Date(2025, 9, 12, hour, 5).getTime();
      const intl = new Date(at).toLocaleTimeString(LOCALES[lang], { hour: 'numeric', minute: '2-digit' });
      expect(clockTime(lang, at), `${hour}:05`).toBe(plainSpaces(intl));
    }
  });
});

describe('sentences with values and counts', () => {
  it('should fill each placeholder once, and show a name that looks like one as it was typed', () => {
    expect(fill('Your notes for {runner}', { runner: '{from}' })).toBe('Your notes for {from}');
    expect(translator(de)('note.meta', { time: '15:05', seconds: 5, from: 'Oma' })).toBe('15:05 · 5 s · von Oma');
  });

  it('should count as each language does: French says 0 and 1 in the singular', () => {
    const offline = (lang: Lang, n: number) => plural(CATALOGUES[lang], lang, 'status.offline', n);
    expect(offline('en', 0)).toBe("You're offline. 0 notes waiting on this phone.");
    expect(offline('en', 1)).toBe("You're offline. 1 note waiting on this phone.");
    expect(offline('de', 2)).toBe('Du bist offline. 2 Nachrichten warten auf diesem Handy.');
    expect(offline('fr', 0)).toBe('Vous êtes hors ligne. 0 message attend sur ce téléphone.');
    expect(offline('fr', 2)).toBe('Vous êtes hors ligne. 2 messages attendent sur ce téléphone.');
  });
});

describe("the server's refusals in the sender's language", () => {
  const context = { runner: 'Alex' };

  it('should say a known code in the language, with the runner and the limits filled in', () => {
    expect(refusal(de, 'link_full', 'This link has reached its limit of notes. Ask Alex for a new link.', context)).toBe(
      'Dieser Link hat die Höchstzahl an Nachrichten erreicht. Bitte Alex um einen neuen Link.',
    );
    expect(refusal(es, 'too_large', undefined, context)).toContain(`${MAX_NOTE_BYTES / 1024 / 1024} MB`);
    expect(refusal(en, 'link_storage_full', undefined, context)).toBe('This link has no room left for more recordings. Ask Alex for a new link.');
  });

  it("should fall back to the server's own sentence for a code the page does not know, or no code", () => {
    expect(refusal(fr, 'brand_new_code', 'A sentence from the server.', context)).toBe('A sentence from the server.');
    expect(refusal(fr, undefined, 'Not JSON, but a sentence.', context)).toBe('Not JSON, but a sentence.');
    expect(refusal(fr, 'brand_new_code', undefined, context)).toBeUndefined();
  });
});
