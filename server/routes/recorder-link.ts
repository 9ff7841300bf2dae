/**
 * Owns what a recorder link says to the phone (the runner, the race, its markers, the runner's
 * progress while live, the server's clock): one answer for GET /api/r/:token (./recorder.ts) and
 * for the data /r/:token's HTML carries (./recorder-page.ts), so the two never differ.
 */
import type { RecorderLink } from '../../contract/api.js';
import { markersFor } from '../../contract/markers.js';
import type { Clock } from '../clock.js';
import type { LinkView, Repository } from '../db/repository.js';
import { publicRace } from '../races/public-race.js';
import { linkProgress } from '../races/tracking.js';

/** The recorder's data for a live link, as of the clock's now. */
export async function recorderLinkOf(repo: Repository, clock: Clock, link: LinkView): Promise<RecorderLink> {
  const { linkId, runnerName, race } = link;
  const now = clock.now();
  const tracked = await linkProgress(repo, linkId, race, now);
  return {
    runner: { displayName: runnerName },
    race: publicRace(race, now),
    markers: markersFor(race.units),
    ...tracked,
    clock: { now: new Date(now).toISOString(), rate: clock.rate },
  };
}
