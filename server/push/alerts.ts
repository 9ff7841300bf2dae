/**
 * A spectator's "tell me when {runner} is about 10 minutes from Mile N", from the very
 * estimate the recorder shows and the conversion queue schedules by (server/races/eta.ts, by way of
 * tracking.ts), and only while the runner shares progress in a live race.
 *
 * Where the check runs: an alert has a due time (the expected arrival less ALERT_LEAD_MS, kept for
 * its link and marker), worked out again on each accepted position batch, the only thing that moves
 * the estimate; the push worker's poll (./deliveries.ts) fires alerts once due. So an alert fires at
 * the time the estimate says, even when the runner's phone sends its next batch minutes later, and a
 * batch that shows the marker passed removes it first. Each is checked again against the estimate
 * as it stands at fire time: passed, race over, or progress no longer shared, and nothing is sent.
 *
 * What a batch costs is what one runner costs, however many phones wait on the link: one
 * estimate per link, one write of its markers' due times (kept per link and marker, shared by every
 * phone's alert there: server/db/push-alert-store.ts), and one pass per entry at a time in this
 * process (./coalesce.ts); the poll likewise reads one estimate per link and fires a marker's alerts
 * in one transaction.
 */
import { markerLabel } from '../../contract/markers.js';
import { ALERT_LEAD_MINUTES } from '../../contract/push.js';
import { raceWhen } from '../../contract/raceClock.js';
import type { LinkView, Repository } from '../db/repository.js';
import { linkProgress } from '../races/tracking.js';
import { coalescedPasses } from './coalesce.js';
import { PUSH_TTL_SECONDS } from './notice.js';
import { pushRefusal } from './refusals.js';

export const ALERT_LEAD_MS = ALERT_LEAD_MINUTES * 60_000;
/** A due alert the estimate now puts further off than this past its lead waits for its new time instead. */
const LATE_SLACK_MS = 60_000;
/** A due alert whose runner does not share progress now is looked at again this much later (or at the next batch). */
const UNSHARED_RECHECK_MS = 60_000;
/** Links' markers whose alerts are fired per poll at most; the rest wait for the next. */
const FIRE_BATCH = 50;

type Estimate = { kind: 'over' | 'not_shared' | 'passed' } | { kind: 'expected'; at: number };

/** Where a link's runner stands for its alerts: one read of the shared progress, for every marker. */
type LinkEstimate = { kind: 'over' | 'not_shared' } | { kind: 'tracked'; ahead: ReadonlyMap<string, number> };

async function estimateOfLink(repo: Repository, link: LinkView, now: number): Promise<LinkEstimate> {
  if (raceWhen(link.race.startsAt, now) === 'past') return { kind: 'over' };
  const tracked = await linkProgress(repo, link.linkId, link.race, now);
  if (!tracked) return { kind: 'not_shared' };
  // The estimates list only the markers ahead of the runner's last fix.
  return { kind: 'tracked', ahead: new Map(tracked.estimates.markers.map((m) => [m.id, Date.parse(m.at)])) };
}

function markerEstimate(estimate: LinkEstimate, marker: string): Estimate {
  if (estimate.kind !== 'tracked') return estimate;
  const at = estimate.ahead.get(marker);
  return at === undefined ? { kind: 'passed' } : { kind: 'expected', at };
}

export interface MarkerAlerts {
  /** Asks for an alert on this subscription; refused (pushRefusal) when there is no estimate to go by, or it is too late. */
  ask(subscriptionId: string, link: LinkView, marker: string, now: number): Promise<void>;
  /**
   * After an accepted position batch: the entry's waiting alerts take their new due times; passed ones
   * go. Asked while a pass for the entry runs, it runs once after that one (asks meanwhile coalesced).
   */
  positionsMoved(entryId: string, now: number): Promise<void>;
  /**
   * Fires the alerts due by `now` (the race's clock) whose estimate still holds, every phone's on a
   * link and marker at once; resolves to how many were queued. `realNow` stamps the pushes queued,
   * whose life and retries run on the real clock.
   */
  fireDue(now: number, realNow?: number): Promise<number>;
}

export function createMarkerAlerts(repo: Repository): MarkerAlerts {
  /**
   * One pass over an entry's alerts: per link with waiting alerts, one estimate and one transaction
   * (its markers' due times in one statement; the passed markers' alerts removed); a race over takes them all.
   */
  async function followEstimate(entryId: string, now: number): Promise<void> {
    for (const linkId of await repo.push.linksWithOpenAlerts(entryId)) {
      const link = await repo.links.find(linkId);
      if (!link) continue;
      const estimate = await estimateOfLink(repo, link, now);
      // Not shared now: the alerts keep their times; the poll looks again when they are due.
      if (estimate.kind === 'not_shared') continue;
      const due = new Map<string, number>();
      if (estimate.kind === 'tracked') for (const [marker, at] of estimate.ahead) due.set(marker, at - ALERT_LEAD_MS);
      await repo.push.followEstimate(linkId, due);
    }
  }
  const passes = coalescedPasses(followEstimate);

  return {
    async ask(subscriptionId, link, marker, now) {
      const estimate = markerEstimate(await estimateOfLink(repo, link, now), marker);
      const label = markerLabel(marker);
      if (estimate.kind === 'passed') throw pushRefusal.marker_passed(link.runnerName, label);
      if (estimate.kind !== 'expected') throw pushRefusal.progress_not_shared(link.runnerName);
      if (estimate.at - now < ALERT_LEAD_MS) throw pushRefusal.marker_too_near(link.runnerName, label);
      await repo.push.setAlert(subscriptionId, marker, estimate.at - ALERT_LEAD_MS, now);
    },

    positionsMoved: (entryId, now) => passes.request(entryId, now),

    async fireDue(now, realNow = now) {
      let fired = 0;
      // Several markers of one link may be due in one poll: one estimate per link per poll.
      const estimates = new Map<string, LinkEstimate>();
      const estimateOf = async (linkId: string): Promise<LinkEstimate> => {
        let estimate = estimates.get(linkId);
        if (!estimate) {
          const link = await repo.links.find(linkId);
          // A revoked link's subscriptions are removed with it; one revoked in between is simply not told.
          estimate = !link || link.revoked ? { kind: 'over' } : await estimateOfLink(repo, link, now);
          estimates.set(linkId, estimate);
        }
        return estimate;
      };
      for (const alert of await repo.push.dueAlerts(now, FIRE_BATCH)) {
        const { linkId, marker } = alert;
        const estimate = markerEstimate(await estimateOf(linkId), marker);
        if (estimate.kind === 'expected') {
          const due = estimate.at - ALERT_LEAD_MS;
          if (due > now + LATE_SLACK_MS) await repo.push.moveAlerts(linkId, marker, due);
          else fired += await repo.push.fireAlerts(linkId, marker, realNow, realNow + PUSH_TTL_SECONDS.soon * 1000);
        } else if (estimate.kind === 'not_shared') {
          await repo.push.moveAlerts(linkId, marker, now + UNSHARED_RECHECK_MS);
        } else {
          await repo.push.removeAlerts(linkId, marker);
        }
      }
      return fired;
    },
  };
}
