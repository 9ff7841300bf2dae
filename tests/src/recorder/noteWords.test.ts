import { afterEach, describe, expect, it } from 'vitest';
import { chooseLanguage, clockTime } from '../../../src/i18n/index.js';
import { nextTry, noteReason } from '../../../src/recorder/noteWords.js';
import type { OutboxNote } from '../../../src/outbox/notes.js';
import { OUTBOX_CODE } from '../../../src/outbox/codes.js';

const NOW = new Date(2026, 9, 11, 9, 30).getTime();
const held = (lastCode: string, waitMs: number): Pick<OutboxNote, 'state' | 'lastCode' | 'nextAttemptAt'> => ({
  state: 'waiting',
  lastCode,
  nextAttemptAt: NOW + waitMs,
});

describe('the words under a note that is not delivered', () => {
  afterEach(() => chooseLanguage('en'));

  it('should say why a note is held by an address limit, in the language, and at what time it is tried again', async () => {
    const note = { ...held('address_rate_limited', 5 * 60_000), lastStatus: 429, lastError: 'The server is busy (error 429). Trying again soon.' };
    expect(noteReason(note, 'Alex')).toBe(
      'Many notes were sent from this network in a short time. Your note is saved on this phone and will be sent again shortly.',
    );
    expect(nextTry(note, true, NOW)).toBe(`It will be tried again at ${clockTime(NOW + 5 * 60_000)}.`);
    expect(nextTry(note, true, NOW)).toBe('It will be tried again at 9:35 AM.');
    await chooseLanguage('de');
    expect(noteReason(note, 'Alex')).toMatch(/^Aus diesem Netzwerk kamen/);
    expect(nextTry(note, true, NOW)).toBe('Nächster Versuch um 9:35 Uhr.');
  });

  it('should say "in less than a minute" for a short wait, and "when back online" for a phone without a network', () => {
    expect(nextTry(held('too_many_open_uploads', 5_000), true, NOW)).toBe('It will be tried again in less than a minute.');
    expect(nextTry(held('too_many_open_uploads', -5_000), true, NOW)).toBe('It will be tried again in less than a minute.');
    expect(nextTry(held('rate_limited', 10 * 60_000), false, NOW)).toBe('It will be tried again when this phone is back online.');
  });

  it('should add no time where the reason says it already, or nothing failed, or the person must act', () => {
    expect(nextTry(held(OUTBOX_CODE.offline, 60_000), true, NOW)).toBeUndefined();
    expect(nextTry({ state: 'waiting', nextAttemptAt: NOW }, true, NOW)).toBeUndefined();
    expect(nextTry({ ...held('link_full', 60_000), state: 'failed' }, true, NOW)).toBeUndefined();
  });

  it("should put the outbox's own reasons in the language, with the status where the sentence has one", async () => {
    expect(noteReason({ state: 'waiting', lastCode: OUTBOX_CODE.serverBusy, lastStatus: 503, lastError: 'x' }, 'Alex')).toBe('The server is busy (error 503).');
    await chooseLanguage('fr');
    expect(noteReason({ state: 'failed', lastCode: OUTBOX_CODE.refused, lastStatus: 418, lastError: 'x' }, 'Alex')).toBe(
      "Le serveur n'a pas pu accepter ce message (erreur 418).",
    );
    expect(noteReason({ state: 'failed', lastCode: 'link_full', lastStatus: 429, lastError: 'x' }, 'Alex')).toBe(
      'Ce lien a atteint sa limite de messages. Demandez un nouveau lien à Alex.',
    );
  });
});
