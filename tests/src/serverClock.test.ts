import { describe, expect, it } from 'vitest';
import { pageClock, phoneMs } from '../../src/serverClock.js';

const SERVER = Date.parse('2026-10-11T15:41:00Z');
const MINUTE = 60_000;

describe('the server’s clock on the page', () => {
  it('should read the server’s time on a phone whose clock is ten minutes slow, and move on with it', () => {
    let phone = SERVER - 10 * MINUTE;
    const clock = pageClock({ now: new Date(SERVER).toISOString(), rate: 1 }, phone, () => phone);
    expect(clock.rate).toBe(1);
    expect(clock.now()).toBe(SERVER);
    phone += 90_000;
    expect(clock.now()).toBe(SERVER + 90_000);
    // A note recorded on the phone two minutes before the answer came, said on the server's clock.
    expect(clock.at(SERVER - 12 * MINUTE)).toBe(SERVER - 2 * MINUTE);
  });

  it('should run as fast as the demo’s compressed clock, from the answer on', () => {
    let phone = 1_000_000;
    const clock = pageClock({ now: new Date(SERVER).toISOString(), rate: 49 }, phone, () => phone);
    phone += 1_000;
    expect(clock.now()).toBe(SERVER + 49_000);
    expect(clock.at(1_000_000 - 2_000)).toBe(SERVER - 98_000);
    // A race minute is 1.2 real seconds; a refresh every race minute is held to the floor given.
    expect(phoneMs(clock.rate, 60_000)).toBeCloseTo(1224.5, 0);
    expect(phoneMs(clock.rate, 60_000, 2_000)).toBe(2_000);
    expect(phoneMs(1, 60_000, 2_000)).toBe(60_000);
  });

  it('should keep the phone’s own clock for a copy of the link kept by an older version, or a clock it cannot read', () => {
    let phone = SERVER;
    for (const told of [undefined, { now: 'soon', rate: 1 }]) {
      const clock = pageClock(told, phone - 5_000, () => phone);
      expect(clock.rate).toBe(1);
      expect(clock.now()).toBe(phone);
      expect(clock.at(phone - 7)).toBe(phone - 7);
    }
    phone += 1;
    // A rate it cannot use runs at the real one, from the server's time.
    const slow = pageClock({ now: new Date(SERVER).toISOString(), rate: 0.5 }, SERVER, () => phone);
    expect(slow.rate).toBe(1);
    expect(slow.now()).toBe(SERVER + 1);
  });
});
