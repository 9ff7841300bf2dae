/**
 * Every code a note can carry (the server's refusals, contract/refusals.ts, and the outbox's own,
 * src/outbox/codes.ts) has its sentence in every language, so no sender reads the server's
 * English fallback for a code the page was told about.
 */
import { afterAll, describe, expect, it } from 'vitest';
import de from '../../../src/i18n/de.js';
import { en as enCore, type Catalogue } from '../../../src/i18n/en.js';
import { enHome } from '../../../src/i18n/enHome.js';
import { enKeepsake } from '../../../src/i18n/enKeepsake.js';
import { enPush } from '../../../src/i18n/enPush.js';
import es from '../../../src/i18n/es.js';
import fr from '../../../src/i18n/fr.js';
import { chooseLanguage } from '../../../src/i18n/index.js';
import { LANGUAGES, type Lang } from '../../../contract/languages.js';
import { OUTBOX_KEYS, noteReason } from '../../../src/recorder/noteWords.js';
import { OUTBOX_CODE } from '../../../src/outbox/codes.js';
import { RECORDER_REFUSALS } from '../../../contract/refusals.js';

/** All of English: the recorder's part and those that come with other chunks. */
const en = { ...enCore, ...enPush, ...enHome, ...enKeepsake };

const CATALOGUES: Record<Lang, Catalogue> = { en, de, es, fr };
const sentence = (lang: Lang, key: string) => (CATALOGUES[lang] as unknown as Record<string, string | undefined>)[key];
/** The server's English sentence, as a note stores it: never what a known code shows. */
const SERVER_SENTENCE = 'The server said so, in English.';

describe('the codes a note can carry', () => {
  afterAll(() => chooseLanguage('en'));

  it.each(LANGUAGES)('should give every server refusal the recorder can meet a sentence in %s', (lang) => {
    expect(RECORDER_REFUSALS.filter((code) => !sentence(lang, `refusal.${code}`)?.trim())).toEqual([]);
  });

  it.each(LANGUAGES)("should give every one of the outbox's own reasons a sentence in %s", (lang) => {
    expect(Object.keys(OUTBOX_KEYS).sort()).toEqual(Object.values(OUTBOX_CODE).sort());
    expect(Object.values(OUTBOX_CODE).filter((code) => !sentence(lang, OUTBOX_KEYS[code])?.trim())).toEqual([]);
  });

  it.each(LANGUAGES)('should show each code on a note in %s, never the stored English sentence', async (lang) => {
    await chooseLanguage(lang);
    for (const code of [...RECORDER_REFUSALS, ...Object.values(OUTBOX_CODE)]) {
      const shown = noteReason({ state: 'failed', lastCode: code, lastError: SERVER_SENTENCE, lastStatus: 429 }, 'Alex');
      expect(shown, code).not.toBe(SERVER_SENTENCE);
      expect(shown, code).toBeTruthy();
    }
  });

  it("should show the server's sentence for a code the page does not know, in any language", async () => {
    await chooseLanguage('de');
    expect(noteReason({ state: 'failed', lastCode: 'something_new', lastError: SERVER_SENTENCE }, 'Alex')).toBe(SERVER_SENTENCE);
    // A code named like a property every object has is still a code the page does not know.
    expect(noteReason({ state: 'failed', lastCode: 'constructor', lastError: SERVER_SENTENCE }, 'Alex')).toBe(SERVER_SENTENCE);
  });

  it("should say 'server busy' in the language for a retryable answer whose code the page does not know", async () => {
    await chooseLanguage('es');
    // The outbox stores its own English 'busy' sentence for these (src/outbox/replay.ts), not the server's.
    const note = { state: 'waiting', lastCode: 'internal', lastStatus: 500, lastError: 'The server is busy (error 500). Trying again soon.' } as const;
    expect(noteReason(note, 'Alex')).toBe('El servidor está ocupado (error 500).');
  });
});
