/**
 * The reference app runs a stretch of a live race end to end, compressed in time, against the real
 * server process (conversion on) with its phone behind a fault proxy: every note a friend sends a
 * few race minutes ahead reaches the phone and plays at its marker, once, and is reported played.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRaceDay } from '../../../bench/load/race.js';
import { startRaceDayWorld, type RaceDayWorld } from './world.js';

describe('the reference app on race day', () => {
  let world: RaceDayWorld;

  beforeAll(async () => {
    // A cell that drops a request in ten and adds 300 ms: the app must get through it on its own.
    world = await startRaceDayWorld({ durationMs: 10 * 60_000, offline: [], failureShare: 0.1, bitsPerSecond: 2_000_000, latencyMs: 300, seed: 19 });
  }, 120_000);

  afterAll(async () => world?.close());

  it('should play every note sent 8-15 race minutes ahead at its marker, once, and report it played', async () => {
    const result = await runRaceDay({
      server: world.server,
      apple: world.apple,
      phoneUrl: world.proxy.url,
      friendsUrl: world.server.url,
      compression: 30,
      fromMeters: 16_000,
      toMeters: 22_500,
      friends: 4,
      leadMinutes: [8, 15],
      noteSeconds: [10, 20],
      seed: 3,
    });
    expect(result.errors).toEqual([]);
    expect(result.notes.length).toBeGreaterThanOrEqual(3);
    for (const note of result.notes) {
      expect(note.storedAt, `note for ${note.marker} stored`).toBeDefined();
      expect(note.onPhoneAt, `note for ${note.marker} on the phone`).toBeDefined();
      expect(note.play, `note for ${note.marker} played`).toMatchObject({ marker: note.marker, heardAtMarker: note.marker, atItsMarker: true });
      expect(note.heardAtMarker, `note for ${note.marker} reported played`).toBe(note.marker);
    }
    expect(result.appBytes).toBeGreaterThan(0);
  }, 240_000);
});
