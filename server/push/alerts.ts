/**
 * A spectator's "tell me when {runner} is about 10 minutes from Mile N" (issue 36), from the very
 * estimate the recorder shows and the conversion queue schedules by (server/races/eta.ts, by way of
 * tracking.ts), and only while the runner shares progress in a live race.
 *
 * Where the check runs: an alert keeps a due time (the expected arrival less ALERT_LEAD_MS), worked
 * out again on each accepted position batch, the only thing that moves the estimate; the push
 * worker's poll (./deliveries.ts) fires alerts once due. So an alert fires at the time the estimate
 * says, even when the runner's phone sends its next batch minutes later, and a batch that shows the
 * marker passed removes it first. Each is checked again against the estimate as it stands at fire
 * time: passed, race over, or progress no longer shared, and nothing is sent.
 */
import { markerLabel } from '../../src/shared/markers.js';
import { ALERT_LEAD_MINUTES } from '../../src/shared/push.js';
import { raceWhen } from '../../src/shared/raceClock.js';
import type { LinkView, Repository } from '../db/repository.js';
import { linkProgress } from '../races/tracking.js';
import { PUSH_TTL_SECONDS } from './notice.js';
import { pushRefusal } from './refusals.js';

export const ALERT_LEAD_MS = ALERT_LEAD_MINUTES * 60_000;
/** A due alert the estimate now puts further off than this past its lead waits for its new time instead. */
const LATE_SLACK_MS = 60_000;
/** A due alert whose runner does not share progress now is looked at again this much later (or at the next batch). */
const UNSHARED_RECHECK_MS = 60_000;
/** Due alerts fired per poll at most; the rest wait for the next. */
const FIRE_BATCH = 50;

type Estimate = { kind: 'over' | 'not_shared' | 'passed' } | { kind: 'expected'; at: number };

async function estimateFor(repo: Repository, link: LinkView, marker: string, now: number): Promise<Estimate> {
  if (raceWhen(link.race.startsAt, now) === 'past') return { kind: 'over' };
  const tracked = await linkProgress(repo, link.linkId, link.race, now);
  if (!tracked) return { kind: 'not_shared' };
  const expected = tracked.estimates.markers.find((m) => m.id === marker);
  // The estimates list only the markers ahead of the runner's last fix.
  return expected ? { kind: 'expected', at: Date.parse(expected.at) } : { kind: 'passed' };
}

export interface MarkerAlerts {
  /** Asks for an alert on this subscription; refused (pushRefusal) when there is no estimate to go by, or it is too late. */
  ask(subscriptionId: string, link: LinkView, marker: string, now: number): Promise<void>;
  /** After an accepted position batch: the entry's waiting alerts take their new due times; passed ones go. */
  positionsMoved(entryId: string, now: number): Promise<void>;
  /**
   * Fires the alerts due by `now` (the race's clock) whose estimate still holds; resolves to how many
   * were queued. `realNow` stamps the pushes queued, whose life and retries run on the real clock.
   */
  fireDue(now: number, realNow?: number): Promise<number>;
}

export function createMarkerAlerts(repo: Repository): MarkerAlerts {
  return {
    async ask(subscriptionId, link, marker, now) {
      const estimate = await estimateFor(repo, link, marker, now);
      const label = markerLabel(marker);
      if (estimate.kind === 'passed') throw pushRefusal.marker_passed(link.runnerName, label);
      if (estimate.kind !== 'expected') throw pushRefusal.progress_not_shared(link.runnerName);
      if (estimate.at - now < ALERT_LEAD_MS) throw pushRefusal.marker_too_near(link.runnerName, label);
      await repo.push.setAlert(subscriptionId, marker, estimate.at - ALERT_LEAD_MS, now);
    },

    async positionsMoved(entryId, now) {
      const alerts = await repo.push.openAlertsOfEntry(entryId);
      const links = new Map<string, LinkView | undefined>();
      for (const alert of alerts) {
        if (!links.has(alert.linkId)) links.set(alert.linkId, await repo.links.find(alert.linkId));
        const link = links.get(alert.linkId);
        if (!link) continue;
        const estimate = await estimateFor(repo, link, alert.marker, now);
        if (estimate.kind === 'passed' || estimate.kind === 'over') await repo.push.removeAlert(alert.subscriptionId, alert.marker);
        else if (estimate.kind === 'expected') await repo.push.moveAlert(alert.subscriptionId, alert.marker, estimate.at - ALERT_LEAD_MS);
      }
    },

    async fireDue(now, realNow = now) {
      let fired = 0;
      for (const alert of await repo.push.dueAlerts(now, FIRE_BATCH)) {
        const link = await repo.links.find(alert.linkId);
        // A revoked link's subscriptions are removed with it; one revoked in between is simply not told.
        const estimate: Estimate = !link || link.revoked ? { kind: 'over' } : await estimateFor(repo, link, alert.marker, now);
        if (estimate.kind === 'expected') {
          const due = estimate.at - ALERT_LEAD_MS;
          if (due > now + LATE_SLACK_MS) await repo.push.moveAlert(alert.subscriptionId, alert.marker, due);
          else if (await repo.push.fireAlert(alert.subscriptionId, alert.marker, realNow, realNow + PUSH_TTL_SECONDS.soon * 1000)) fired++;
        } else if (estimate.kind === 'not_shared') {
          await repo.push.moveAlert(alert.subscriptionId, alert.marker, now + UNSHARED_RECHECK_MS);
        } else {
          await repo.push.removeAlert(alert.subscriptionId, alert.marker);
        }
      }
      return fired;
    },
  };
}
