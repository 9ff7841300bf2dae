/**
 * The reference app's sync against the real server (conversion on) behind a slow link: a note
 * sent while another note's audio is still coming down is heard of at once, not after it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReferenceApp } from '../../reference-app/app.js';
import { friendNote, sendNote } from '../../stand-ins/friend.js';
import { addLiveRace } from '../../bench/load/race.js';
import { FAKE_APPLE_NONCE } from '../../stand-ins/fakeApple.js';
import { startRaceDayWorld, type RaceDayWorld } from '../bench/load/world.js';

describe('the reference app keeping up with the notes list', () => {
  let world: RaceDayWorld;

  beforeAll(async () => {
    // No failures, only a slow link (12.5 KB/s): a 30 s note's audio takes many seconds to come down.
    world = await startRaceDayWorld({ durationMs: 10 * 60_000, offline: [], failureShare: 0, bitsPerSecond: 100_000, latencyMs: 100, seed: 5 });
  }, 120_000);

  afterAll(async () => world?.close());

  it("should list a note sent while another note's audio is still downloading before that download ends", async () => {
    const { server, apple, proxy } = world;
    const raceId = `app-sync-${Date.now().toString(36)}`;
    await addLiveRace(server, raceId);
    const app = new ReferenceApp({ baseUrl: proxy.url, identityToken: await apple.token({ sub: `runner-${raceId}` }), nonce: FAKE_APPLE_NONCE });
    await app.signIn();
    const { token } = await app.enter(raceId, 'Alex');
    const { markers } = await app.takeRacePack(raceId);
    app.startSync();
    try {
      const [long, short] = await Promise.all([friendNote(30), friendNote(10)]);
      const send = (note: typeof long, marker: string) => sendNote(server.url, token, note, { marker, from: 'Sam', deadlineMs: 60_000 });
      await send(long, markers.at(-1)!.id);
      await vi.waitFor(() => expect(app.listed.has(long.id)).toBe(true), { timeout: 30_000, interval: 50 });
      expect(app.notes.has(long.id), 'the long note is still coming down').toBe(false);

      await send(short, markers.at(-2)!.id);
      await app.awaitNotes([long.id, short.id], 90_000);
      expect(app.listed.get(short.id)).toBeLessThan(app.notes.get(long.id)!.onPhoneAt);
      expect(app.errors).toEqual([]);
    } finally {
      await app.stop();
    }
  }, 180_000);
});
