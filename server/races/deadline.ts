/**
 * A conversion's deadline, pure: the time the runner is expected at the note's marker
 * (./eta.ts) less the time a converted note needs to reach the phone (PHONE_LEAD_MS). The queue
 * (server/db/job-store.ts) converts the earliest deadline first.
 */
import { PHONE_LEAD_MS } from '../../contract/delivery.js';
import { markersFor } from '../../contract/markers.js';
import { expectedArrivals, type EtaInput } from './eta.js';

/** Every marker any race has: a note's marker is one of them, whatever its race's units. */
const ALL_MARKERS = markersFor(['mi', 'km']);

/**
 * The deadline (epoch ms) of a note for `marker` received at `receivedAt` (epoch ms).
 *
 * A marker already passed: the app plays such a note as soon as it arrives, so its deadline is
 * "at once": when it was received, or when the runner passed the marker if that came later. That
 * puts it at the front of the queue, so it is heard soon, but only for a while: the claim puts a
 * note more than LATE_GRACE_MS past its deadline behind every note that can still be on time
 * (server/db/job-store.ts). A note that is late anyway never makes one that could be on time late
 * too, which under overload would make every note late in turn.
 */
export function noteDeadline(input: EtaInput, marker: string, receivedAt: number): number {
  const passage = input.placed ? input.passages.find((p) => p.markerId === marker) : undefined;
  if (passage) return Math.max(receivedAt, passage.passedAt);
  const expected = expectedArrivals(input, ALL_MARKERS).find((m) => m.id === marker);
  // Behind the last fix but with no passage recorded (a marker the runner passed before sharing): passed.
  if (!expected) return receivedAt;
  return expected.at - PHONE_LEAD_MS;
}
