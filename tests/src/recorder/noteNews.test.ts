import { beforeEach, describe, expect, it } from 'vitest';
import { keepNews } from '../../../src/recorder/noteNews.js';
import { freeDeliveredAudio, getNote, replayOutbox } from '../../../src/outbox/index.js';
import { freshDb, queuedNote, scriptedTransport } from '../outbox/helpers.js';

describe("a delivered note's news kept on the phone", () => {
  beforeEach(freshDb);

  it('should keep what the server said on the note, and keep it when the outbox frees the audio later', async () => {
    const note = await queuedNote();
    await replayOutbox(scriptedTransport([201]).transport);
    await keepNews(note.id, { kind: 'unplayable' });
    expect((await getNote(note.id))?.news).toEqual({ kind: 'unplayable' });

    expect(await freeDeliveredAudio(Date.now() + 30 * 24 * 60 * 60 * 1000)).toBe(1);
    expect(await getNote(note.id)).toMatchObject({ audioFreed: true, news: { kind: 'unplayable' } });
  });

  it('should leave a note that is not delivered as it is', async () => {
    const note = await queuedNote();
    expect(await keepNews(note.id, { kind: 'heard', at: 'Mile 13', marker: 'mi-13' })).toBeUndefined();
    expect((await getNote(note.id))?.news).toBeUndefined();
    expect(await keepNews('no-such-note', { kind: 'gone' })).toBeUndefined();
  });
});
