/**
 * The words a sender reads under a note the server could not store for now (503 storage_unavailable
 * or storage_full): why, in each language, and when it is tried again; and the outbox
 * keeps the note waiting until the server's Retry-After, never failing it.
 */
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseLanguage, clockTime } from '../../../src/i18n/index.js';
import type { Lang } from '../../../contract/languages.js';
import { nextTry, noteReason } from '../../../src/recorder/noteWords.js';
import { getNote, readAudio, replayOutbox } from '../../../src/outbox/index.js';
import { clock, freshDb, queuedNote } from '../outbox/helpers.js';

const NOW = new Date(2026, 9, 11, 9, 30).getTime();

type Code = 'storage_unavailable' | 'storage_full';

/** Why, for each code, and the "soon" and "at {time}" of the next try, in each language. */
const WORDS: Record<Lang, Record<Code, string> & { soon: string; at: (time: string) => string }> = {
  en: {
    storage_unavailable: 'The server cannot reach its storage for a moment. Your note is kept on your phone and will be sent again.',
    storage_full: 'The server has no room to store notes right now. Your note is kept on your phone and will be sent again.',
    soon: 'It will be tried again in less than a minute.',
    at: (time) => `It will be tried again at ${time}.`,
  },
  fr: {
    storage_unavailable: 'Le serveur ne peut pas joindre son stockage pour le moment. Votre message reste sur votre téléphone et sera renvoyé.',
    storage_full: 'Le serveur n’a plus de place pour enregistrer des messages pour le moment. Votre message reste sur votre téléphone et sera renvoyé.',
    soon: "Nouvel essai dans moins d'une minute.",
    at: (time) => `Nouvel essai à ${time}.`,
  },
  de: {
    storage_unavailable: 'Der Server erreicht seinen Speicher gerade nicht. Deine Nachricht bleibt auf deinem Handy und wird noch einmal gesendet.',
    storage_full: 'Der Server hat gerade keinen Platz, um Nachrichten zu speichern. Deine Nachricht bleibt auf deinem Handy und wird noch einmal gesendet.',
    soon: 'Nächster Versuch in weniger als einer Minute.',
    at: (time) => `Nächster Versuch um ${time} Uhr.`,
  },
  es: {
    storage_unavailable: 'El servidor no puede acceder a su almacenamiento por un momento. Tu mensaje sigue en tu teléfono y se enviará de nuevo.',
    storage_full: 'El servidor no tiene espacio para guardar mensajes ahora mismo. Tu mensaje sigue en tu teléfono y se enviará de nuevo.',
    soon: 'Se volverá a intentar en menos de un minuto.',
    at: (time) => `Se volverá a intentar a las ${time}.`,
  },
};

/** A note the outbox holds after a 503 with this code, as replay.ts stores it. */
const heldBy = (code: Code, waitMs: number) => ({
  state: 'waiting' as const,
  lastCode: code,
  lastStatus: 503,
  lastError: 'The server is busy (error 503). Trying again soon.',
  nextAttemptAt: NOW + waitMs,
});

describe('the words under a note the server could not store for now', () => {
  afterEach(() => chooseLanguage('en'));

  it.each(Object.keys(WORDS) as Lang[])('should say why and when it is tried again, in %s', async (lang) => {
    await chooseLanguage(lang);
    const words = WORDS[lang];
    for (const code of ['storage_unavailable', 'storage_full'] as const) {
      expect(noteReason(heldBy(code, 10_000), 'Alex')).toBe(words[code]);
      expect(nextTry(heldBy(code, 10_000), true, NOW)).toBe(words.soon);
      const later = heldBy(code, 2 * 60_000);
      expect(nextTry(later, true, NOW)).toBe(words.at(clockTime(later.nextAttemptAt)));
    }
  });
});

describe('the outbox after a 503 storage fault', () => {
  beforeEach(freshDb);

  it.each(['storage_unavailable', 'storage_full'] as const)(
    'should keep a note refused with %s waiting until its Retry-After, then deliver it',
    async (code) => {
      const t = clock();
      const note = await queuedNote();
      const body = JSON.stringify({ error: code, message: 'The server said so.' });
      const report = await replayOutbox(async () => ({ status: 503, body, retryAfter: '60' }), { locks: null, random: () => 0.5, now: t.now });
      expect(report).toMatchObject({ failed: [], waiting: 1 });
      expect(await getNote(note.id)).toMatchObject({ state: 'waiting', lastStatus: 503, lastCode: code, nextAttemptAt: t.now() + 60_000 });
      expect(await readAudio(note.id)).toBeDefined();

      let sent = 0;
      const deliver = async () => (sent++, { status: 201, body: '{}', retryAfter: null });
      t.advance(59_000);
      await replayOutbox(deliver, { locks: null, now: t.now });
      expect(sent).toBe(0);
      t.advance(1_000);
      expect((await replayOutbox(deliver, { locks: null, now: t.now })).delivered).toEqual([note.id]);
    },
  );
});
