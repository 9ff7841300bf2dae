/**
 * Race-day progress between the routes and the stores: a batch of positions placed on the race's
 * course (./progress.ts) and kept as distance and passages only, and the progress a link holder may
 * see. Routes check who asks and whether the race is live; this module decides what each fix is worth.
 */
import type { Estimates, Progress } from '../../contract/api.js';
import { markerLabel, markersFor } from '../../contract/markers.js';
import type { IgnoredReason, PositionBatch, PositionsReceipt } from '../../contract/progressApi.js';
import { LIVE_HOURS, raceWhen } from '../../contract/raceClock.js';
import type { EntryProgress, SharedProgress } from '../db/progress-store.js';
import type { RaceCourse, RaceRow, StoredPassage } from '../db/types.js';
import type { Repository } from '../db/repository.js';
import { expectedArrivals } from './eta.js';
import { placeFixes, snapCourse, type Fix, type SnapCourse } from './progress.js';
import type { RunnerMovedEvent } from './runner-moved.js';

/**
 * A fix up to a minute ahead of the server's clock is taken (phones' clocks drift by seconds);
 * later than that, the phone's clock is wrong and its time cannot be trusted for speed or passages.
 */
export const FUTURE_SLACK_MS = 60_000;
const LIVE_MS = LIVE_HOURS * 3600_000;
/** Measuring a course costs a pass over every vertex: done once per course (by ETag) per process. */
const MAX_COURSES_KEPT = 16;
/** Two batches of one runner at once: the loser reads again and places its fixes after the winner's. */
const ATTEMPTS = 3;

const courses = new Map<string, SnapCourse>();

function snapCourseOf(course: RaceCourse): SnapCourse {
  let snap = courses.get(course.etag);
  if (!snap) {
    snap = snapCourse(course.line, course.markers);
    if (courses.size >= MAX_COURSES_KEPT) courses.delete(courses.keys().next().value!);
    courses.set(course.etag, snap);
  }
  return snap;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What the recorder and the app see of progress: distance, time and the last marker, never a coordinate. */
export function progressBody(progress: EntryProgress): Progress | null {
  if (!progress.placed) return null;
  const last = progress.lastPassage;
  return {
    distanceMeters: Math.round(progress.placed.distanceMeters),
    at: iso(progress.placed.at),
    lastMarker: last && { id: last.markerId, label: markerLabel(last.markerId), passedAt: iso(last.passedAt) },
  };
}

/** When the runner is expected at each of the race's markers not yet passed (./eta.ts), made at `now`. */
export function estimatesBody(shared: SharedProgress, race: RaceRow, now: number): Estimates {
  const arrivals = expectedArrivals(
    { startsAt: Date.parse(race.startsAt), expectedFinishSeconds: shared.expectedFinishSeconds, placed: shared.placed, passages: shared.passages },
    markersFor(race.units),
  );
  return { madeAt: iso(now), markers: arrivals.map((m) => ({ id: m.id, at: iso(m.at) })) };
}

/**
 * The progress a link's holder sees, and when the runner is expected at the markers ahead: only
 * while the race is live, the runner shares it, and a position was placed. Never a coordinate.
 */
export async function linkProgress(
  repo: Repository,
  linkId: string,
  race: RaceRow,
  now: number,
): Promise<{ progress: Progress; estimates: Estimates } | undefined> {
  if (raceWhen(race.startsAt, now) !== 'live') return undefined;
  const shared = await repo.progress.sharedThroughLink(linkId);
  const progress = shared && progressBody(shared);
  return progress ? { progress, estimates: estimatesBody(shared, race, now) } : undefined;
}

/** Why a fix's time rules it out, or undefined: before the start, after the race's hours, or ahead of our clock. */
function timeProblem(at: number, startsAt: number, now: number): IgnoredReason | undefined {
  if (at > now + FUTURE_SLACK_MS) return 'future';
  if (at < startsAt || at >= startsAt + LIVE_MS) return 'outside_race';
  return undefined;
}

/** The later of two passages, by time then marker, as the store orders them. */
const laterPassage = (a: StoredPassage | null, b: StoredPassage): StoredPassage =>
  a && (a.passedAt > b.passedAt || (a.passedAt === b.passedAt && a.markerId > b.markerId)) ? a : b;

/**
 * Places a batch for an entry that shares progress, in a race that is live, on its course; when it
 * placed fixes, tells `runnerMoved`'s listeners before it answers. `known`: the entry's progress as
 * the caller just read it, placed from first; read again only when another batch moved it meanwhile.
 */
export async function recordPositions(
  repo: Repository,
  runnerMoved: RunnerMovedEvent,
  entryId: string,
  race: RaceRow,
  course: RaceCourse,
  batch: PositionBatch,
  now: number,
  known?: EntryProgress,
): Promise<PositionsReceipt> {
  const startsAt = Date.parse(race.startsAt);
  const ignored: PositionsReceipt['ignored'] = [];
  const fixes: Array<Fix & { index: number }> = [];
  batch.positions.forEach((p, index) => {
    const at = Date.parse(p.at);
    const problem = timeProblem(at, startsAt, now);
    if (problem) ignored.push({ index, reason: problem });
    else fixes.push({ index, at, lat: p.lat, lon: p.lon, accuracy: p.accuracy });
  });
  const snap = snapCourseOf(course);
  for (let attempt = 1; ; attempt++) {
    const current = attempt === 1 && known ? known : await repo.progress.ofEntry(entryId);
    const { placed, passages, outcomes } = placeFixes(snap, current.placed ?? { distanceMeters: 0, at: startsAt }, fixes);
    const accepted = outcomes.filter((o) => o === 'accepted').length;
    const moved =
      accepted === 0 ||
      (await repo.progress.advance(
        entryId,
        current.placed,
        placed,
        passages.map((p) => ({ markerId: p.markerId, passedAt: p.passedAt })),
      ));
    if (!moved && attempt < ATTEMPTS) continue;
    if (!moved) throw new Error(`progress of entry ${entryId} kept changing under ${ATTEMPTS} attempts`);
    outcomes.forEach((outcome, i) => {
      if (outcome !== 'accepted') ignored.push({ index: fixes[i]!.index, reason: outcome });
    });
    if (accepted > 0) await runnerMoved.emit({ entryId, at: now, passedMarker: passages.length > 0 || !current.placed });
    return {
      accepted,
      ignored: ignored.sort((a, b) => a.index - b.index),
      // What the batch wrote, not read back: the compare-and-set held, so nothing else moved it since `current`.
      progress: progressBody(accepted === 0 ? current : { ...current, placed, lastPassage: passages.reduce(laterPassage, current.lastPassage) }),
    };
  }
}
