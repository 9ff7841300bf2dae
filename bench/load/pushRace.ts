/**
 * The push bench's race (bench/sections/push.ts): when each spectator's marker alert fires and
 * when its runner really passes. Each runner keeps a pace of their own that drifts kilometre by
 * kilometre and fades late (seeded), sends a position batch every minute, and the server's own
 * estimate (server/races/eta.ts) from the latest batch sets the alert's due time: "10 minutes
 * before" the expected pass. The alert fires at the first moment due by the batch then latest,
 * as the alerts pass does on its poll.
 */
import { markersFor } from '../../contract/markers.js';
import { ALERT_LEAD_MINUTES } from '../../contract/push.js';
import { expectedArrivals, type CourseMarker } from '../../server/races/eta.js';
import { seededRandom } from '../../stand-ins/seededRandom.js';

const MINUTE = 60_000;
const LEAD_MS = ALERT_LEAD_MINUTES * MINUTE;
const MARKERS: CourseMarker[] = markersFor(['mi']);

export interface AlertCase {
  marker: string;
  /** Race time (ms from the gun) the alert fires at, and the runner really passes the marker. */
  fireAt: number;
  passAt: number;
}

/** A runner: metres covered at a race time, from per-kilometre paces (s/km) and a wave start. */
function runner(random: () => number) {
  const base = 300 + random() * 110; // 3:31 to 4:49 finishes: the main pack
  const startMs = Math.floor(random() * 20) * MINUTE;
  const paces: number[] = [];
  let drift = 0;
  for (let km = 0; km < 43; km++) {
    drift += (random() * 2 - 1) * 0.02;
    drift = Math.max(-0.06, Math.min(0.1, drift));
    paces.push(base * (1 + drift + (km > 30 ? (km - 30) * 0.008 : 0)));
  }
  const at = (meters: number): number => {
    let ms = startMs;
    for (let km = 0; km * 1000 < meters; km++) ms += (Math.min(1000, meters - km * 1000) / 1000) * paces[km]! * 1000;
    return ms;
  };
  const distanceAt = (ms: number): number => {
    let lo = 0;
    let hi = 42_195;
    for (let i = 0; i < 30; i++) {
      const mid = (lo + hi) / 2;
      if (at(mid) <= ms) lo = mid;
      else hi = mid;
    }
    return lo;
  };
  return { at, distanceAt, startMs };
}

/** One alert per spectator: `perMarker` spectators at each of `markers`, each following a runner of the pack. */
export function alertCases(markers: string[], perMarker: number, seed = 7): AlertCase[] {
  const random = seededRandom(seed);
  const cases: AlertCase[] = [];
  for (const id of markers) {
    const marker = MARKERS.find((m) => m.id === id)!;
    for (let i = 0; i < perMarker; i++) {
      const r = runner(random);
      const passAt = r.at(marker.distanceMeters);
      let fireAt = passAt; // never due before the pass: counted as late by the whole lead
      for (let batch = r.startMs + 10 * MINUTE; batch < passAt; batch += MINUTE) {
        const placed = { distanceMeters: r.distanceAt(batch), at: batch };
        const passages = MARKERS.filter((m) => m.distanceMeters <= placed.distanceMeters).map((m) => ({
          markerId: m.id,
          passedAt: Math.round(r.at(m.distanceMeters)),
        }));
        const expected = expectedArrivals({ startsAt: 0, expectedFinishSeconds: null, placed, passages }, MARKERS).find((m) => m.id === id);
        if (!expected) break;
        const due = expected.at - LEAD_MS;
        if (due < batch + MINUTE) {
          fireAt = Math.max(batch, due);
          break;
        }
      }
      cases.push({ marker: id, fireAt, passAt });
    }
  }
  return cases;
}

/** An alert's error (minutes): how far from ALERT_LEAD_MINUTES before the pass it reached the phone; positive is late. */
export const alertErrorMinutes = (c: AlertCase, deliveredAfterMs: number): number => (LEAD_MS - (c.passAt - (c.fireAt + deliveredAfterMs))) / MINUTE;
