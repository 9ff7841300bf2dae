import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chooseLanguage, currentLanguage, markerName, raceDate, refusal, startLanguage, t, tn } from '../../../src/i18n/index.js';
import { acceptedLanguages, LANGUAGE_KEY, phoneLanguage, pickLanguage } from '../../../src/i18n/languages.js';
import { describeFailure, FAILED } from '../../../src/recorder/failures.js';
import { microphoneErrorMessage } from '../../../src/recorder/mic.js';
import { StatusLine } from '../../../src/recorder/StatusLine.js';
import { StorageFullError } from '../../../src/outbox/index.js';

describe("choosing the language from the phone's", () => {
  it("should take the first of the browser's languages that the recorder speaks, in the browser's order", () => {
    expect(pickLanguage(null, ['ja-JP', 'es-MX', 'de-DE', 'en-US'])).toBe('es');
    expect(pickLanguage(null, ['fr-CA', 'en'])).toBe('fr');
    expect(pickLanguage(null, ['en-GB', 'de'])).toBe('en');
  });

  it("should read a region or script tag by its language ('de-AT' is German)", () => {
    expect(pickLanguage(null, ['de-AT'])).toBe('de');
    expect(pickLanguage(null, ['ES-419'])).toBe('es');
    expect(pickLanguage(null, ['fr_BE'])).toBe('fr');
  });

  it('should speak English when the browser asks for none it knows, or for nothing', () => {
    expect(pickLanguage(null, ['ja-JP', 'pt-BR'])).toBe('en');
    expect(pickLanguage(null, [])).toBe('en');
    expect(pickLanguage(undefined, ['nl', 'deutsch'])).toBe('en');
  });

  it("should let the choice kept on the phone win over the browser's, and ignore a kept value it does not know", () => {
    expect(pickLanguage('fr', ['de-DE'])).toBe('fr');
    expect(pickLanguage('en', ['de-DE'])).toBe('en');
    expect(pickLanguage('klingon', ['de-DE'])).toBe('de');
  });
});

describe("choosing the language from a request's Accept-Language (the server drawing the recorder)", () => {
  it('should list the tags most wanted first, by q and then in the order sent', () => {
    expect(acceptedLanguages('de-AT,de;q=0.9,en;q=0.8')).toEqual(['de-AT', 'de', 'en']);
    expect(acceptedLanguages('en;q=0.5, fr-CA , es;q=0.7')).toEqual(['fr-CA', 'es', 'en']);
    expect(acceptedLanguages('fr;q=1.0,de;Q=1')).toEqual(['fr', 'de']);
  });

  it('should leave out what is refused (q=0), unreadable, or any (*)', () => {
    expect(acceptedLanguages('de;q=0,*;q=0.5,fr;q=abc, ,es')).toEqual(['es']);
    expect(acceptedLanguages('')).toEqual([]);
  });

  it('should read no more than 32 tags of a long header', () => {
    expect(acceptedLanguages(Array.from({ length: 100 }, (_, i) => `x${i}`).join(','))).toHaveLength(32);
  });

  it('should pick the first the recorder speaks, English otherwise', () => {
    expect(pickLanguage(null, acceptedLanguages('it-IT,it;q=0.9,de;q=0.8'))).toBe('de');
    expect(pickLanguage(null, acceptedLanguages('it-IT,de;q=0'))).toBe('en');
  });
});

/** A phone: its browser's languages, and its storage (a Map), or storage that throws. */
function phone(languages: string[], stored?: string, storageThrows = false) {
  const kept = new Map<string, string>(stored ? [[LANGUAGE_KEY, stored]] : []);
  const fail = () => {
    throw new DOMException('denied', 'SecurityError');
  };
  vi.stubGlobal('navigator', { languages, language: languages[0] });
  vi.stubGlobal('localStorage', {
    getItem: (key: string) => (storageThrows ? fail() : (kept.get(key) ?? null)),
    setItem: (key: string, value: string) => (storageThrows ? fail() : void kept.set(key, value)),
  });
  vi.stubGlobal('document', { documentElement: { lang: 'en' } });
  return kept;
}

describe('the language in use', () => {
  beforeEach(() => phone(['en-US']));
  afterEach(async () => {
    await chooseLanguage('en');
    vi.unstubAllGlobals();
  });

  it("should start in the phone's language with its catalogue loaded, and set <html lang>", async () => {
    phone(['de-AT', 'en']);
    expect(phoneLanguage()).toBe('de');
    await startLanguage();
    expect(currentLanguage()).toBe('de');
    expect(document.documentElement.lang).toBe('de');
    expect(t('record.send')).toBe('Senden');
    expect(markerName('mi-20')).toBe('Meile 20');
    expect(raceDate('2025-09-21')).toBe('21. September 2025');
  });

  it("should keep the menu's choice on the phone, so the next visit starts in it", async () => {
    const kept = phone(['de-DE']);
    await chooseLanguage('fr');
    expect(kept.get(LANGUAGE_KEY)).toBe('fr');
    expect(document.documentElement.lang).toBe('fr');
    expect(phoneLanguage()).toBe('fr');
    await chooseLanguage('en');
    expect(phoneLanguage()).toBe('en');
  });

  it("should still work where storage refuses (private modes), in the browser's language", async () => {
    phone(['es-ES'], undefined, true);
    await startLanguage();
    expect(currentLanguage()).toBe('es');
    await chooseLanguage('fr');
    expect(currentLanguage()).toBe('fr');
  });

  it('should show English rather than wait past its limit for a catalogue, and take the language when it comes', async () => {
    phone(['fr-FR']);
    // A fresh copy of the module, whose French catalogue arrives only when the test lets it.
    let arrive = () => {};
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    vi.resetModules();
    vi.doMock('../../../src/i18n/fr.js', async () => {
      await arrived;
      return vi.importActual('../../../src/i18n/fr.js');
    });
    try {
      const fresh = await import('../../../src/i18n/index.js');
      await fresh.startLanguage(10);
      expect(fresh.currentLanguage()).toBe('en');
      expect(document.documentElement.lang).toBe('en');
      arrive();
      await vi.waitFor(() => expect(fresh.currentLanguage()).toBe('fr'));
      expect(fresh.t('record.send')).toBe('Envoyer');
    } finally {
      vi.doUnmock('../../../src/i18n/fr.js');
    }
  });

  it("should say the recorder's words, its failures and the server's refusals in the language in use", async () => {
    await chooseLanguage('de');
    const text = (html: string) => html.replace(/<[^>]+>/g, '');
    expect(text(renderToStaticMarkup(<StatusLine online={false} waiting={1} backgroundSync={false} />))).toBe(
      'Du bist offline. 1 Nachricht wartet auf diesem Handy. Dieser Browser sendet sie nur, solange diese Seite offen ist: Lass sie offen oder öffne sie wieder, wenn du Empfang hast.',
    );
    expect(tn('status.onlineWaiting', 3)).toBe('Online. 3 Nachrichten warten auf den Versand.');
    expect(describeFailure(new StorageFullError(), FAILED.delete)).toMatch(/^Der Speicher deines Handys ist voll/);
    expect(describeFailure(new Error('x'), FAILED.delete)).toBe('Diese Nachricht ließ sich nicht von diesem Handy löschen. Versuch es noch einmal.');
    expect(microphoneErrorMessage(new DOMException('denied', 'NotAllowedError'))).toContain('Einstellungen › Safari › Mikrofon');
    expect(refusal('link_full', 'This link has reached its limit of notes. Ask Alex for a new link.', { runner: 'Alex' })).toBe(
      'Dieser Link hat die Höchstzahl an Nachrichten erreicht. Bitte Alex um einen neuen Link.',
    );
  });
});
