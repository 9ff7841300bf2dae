import { describe, expect, it } from 'vitest';
import de from '../../../src/i18n/de.js';
import { en as enCore, type Catalogue } from '../../../src/i18n/en.js';
import { enHome } from '../../../src/i18n/enHome.js';
import { enKeepsake } from '../../../src/i18n/enKeepsake.js';
import { enPush } from '../../../src/i18n/enPush.js';
import es from '../../../src/i18n/es.js';
import { placeholdersOf } from '../../../src/i18n/format.js';
import fr from '../../../src/i18n/fr.js';
import { LANGUAGES, type Lang } from '../../../contract/languages.js';
import { NOTICES } from '../../../contract/words.js';

/** All of English: the recorder's part and those that come with other chunks. */
const en = { ...enCore, ...enPush, ...enHome, ...enKeepsake };

const CATALOGUES: Record<Lang, Catalogue> = { en, de, es, fr };
const OTHERS = LANGUAGES.filter((lang) => lang !== 'en');
const englishKeys = Object.keys(en) as Array<keyof Catalogue>;
const sentences = (catalogue: object) => catalogue as Record<string, string | undefined>;
const names = (sentence: string | undefined) => JSON.stringify(placeholdersOf(sentence ?? '').sort());

/** English keys the catalogue has no sentence for. */
const missing = (catalogue: object) => englishKeys.filter((key) => sentences(catalogue)[key] === undefined);
/** Keys the catalogue has that English does not. */
const unknown = (catalogue: object) => Object.keys(catalogue).filter((key) => !(key in en));
/** Keys whose placeholders are not English's. */
const mismatched = (catalogue: object) => englishKeys.filter((key) => key in catalogue && names(sentences(catalogue)[key]) !== names(en[key]));

describe('the catalogues', () => {
  it('should have one catalogue for every language the menu offers', () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual([...LANGUAGES].sort());
  });

  it.each(OTHERS)('should give %s a sentence for every English key, and no key English lacks', (lang) => {
    expect(missing(CATALOGUES[lang])).toEqual([]);
    expect(unknown(CATALOGUES[lang])).toEqual([]);
  });

  it.each(OTHERS)('should give %s the same placeholders as English in every sentence', (lang) => {
    expect(mismatched(CATALOGUES[lang])).toEqual([]);
  });

  it.each(LANGUAGES)('should have no empty sentence in %s, and nothing left in English by mistake', (lang) => {
    const catalogue = CATALOGUES[lang];
    expect(englishKeys.filter((key) => catalogue[key].trim() === '')).toEqual([]);
    if (lang === 'en') return;
    // The same as English only where the words are the same (a number, a unit, 'Online.').
    const same = englishKeys.filter((key) => catalogue[key] === en[key]);
    expect(same.filter((key) => !['date.firstDay', 'marker.km', 'status.online'].includes(key))).toEqual([]);
  });

  it('should give every sentence with a singular form its plural, both counting with {count}', () => {
    const bases = englishKeys.filter((key) => key.endsWith('.one')).map((key) => key.slice(0, -'.one'.length));
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) {
      for (const form of ['one', 'other']) expect(placeholdersOf(sentences(en)[`${base}.${form}`] ?? ''), `${base}.${form}`).toContain('count');
    }
    expect(englishKeys.filter((key) => key.endsWith('.other') && !bases.includes(key.slice(0, -'.other'.length)))).toEqual([]);
  });
});

describe('the checks above', () => {
  it('should name a missing key, an unknown key and a placeholder spelled differently', () => {
    const broken: Record<string, string> = { ...de, 'notes.title': 'Deine Nachrichten für {läufer}', 'record.sned': 'Senden' };
    delete broken['record.send'];
    expect(missing(broken)).toEqual(['record.send']);
    expect(unknown(broken)).toEqual(['record.sned']);
    expect(mismatched(broken)).toEqual(['notes.title']);
  });
});

// The notices a push shows are blocks of their own, read by the server (server/push/notice.ts), not the pages'.
describe('the notices each language words a push with', () => {
  it.each(OTHERS)('should give %s every English notice with the same placeholders, and none the pages speak', (lang) => {
    const notices: Record<string, string> = NOTICES[lang];
    expect(Object.keys(notices).sort()).toEqual(Object.keys(NOTICES.en).sort());
    for (const [key, sentence] of Object.entries(NOTICES.en)) expect(names(notices[key]), key).toBe(names(sentence));
    expect(Object.keys(notices).filter((key) => key in CATALOGUES[lang])).toEqual([]);
  });
});
