/**
 * Race-day progress on the recorder: where the runner is, when they share it, said as
 * "Alex passed Mile 12 at 10:41 AM." in the race's time zone; which markers are behind them; and,
 * when a passed marker is chosen, when the note will play. The link answer carries the progress;
 * it is asked for again every minute of the race (on the server's clock) while the race is live and
 * the page is in view, at once when the page comes back into view or the race turns live: a hidden
 * tab costs the server nothing. The same answer carries when the runner is expected at each marker
 * ahead (./Estimates.tsx), the server's clock (./serverClock.ts), and the race as it stands
 * (a start moved on race morning is shown within a minute, or at the moment the old start
 * comes); each fresh answer is kept on the phone, so a page opened offline shows the last times,
 * with their age.
 */
import { useEffect, useMemo, useRef } from 'react';
import { getLink } from '../apiClient.js';
import type { Estimates, Progress } from '../../contract/api.js';
import type { LinkInfo } from '../outbox/notes.js';
import { saveLink } from '../outbox/index.js';
import { markerName } from '../i18n/index.js';
import { LANGUAGE_RULES } from '../i18n/format.js';
import { useLanguage, useT } from '../i18n/useLanguage.js';
import { raceClockTime } from './raceTime.js';
import { pageClock, phoneMs, type PageClock } from '../serverClock.js';
import { useRaceWhen } from './useRaceWhen.js';

/** How often an open, visible recorder asks where the runner is, in the race's time: a marker is 6 to 12 minutes apart at marathon paces. */
export const PROGRESS_REFRESH_MS = 60_000;
/**
 * Never more often than this (the demo's clock runs a race minute in under a second): the link's
 * requests share RATE_LIMIT_PER_MINUTE (120 a minute) with the notes the page sends.
 */
export const MIN_PROGRESS_REFRESH_MS = 2_000;

/** Where the runner is and when they are expected at the markers ahead, as last heard, and the server's clock then. */
export interface RaceDay {
  progress?: Progress;
  estimates?: Estimates;
  clock: PageClock;
}

const fromLink = (link: LinkInfo, heardAt: number): RaceDay => ({ progress: link.progress, estimates: link.estimates, clock: pageClock(link.clock, heardAt) });

/**
 * The runner's progress and estimates as last heard, kept fresh while the race is live and the page
 * is seen, and the server's clock from the latest answer (`heardAt`: the phone's clock when `link`
 * came). Each fresh answer is handed to `onFresh`, which shows it (the race with it) as `link`.
 */
export function useProgress(token: string, link: LinkInfo, heardAt: number, onFresh: (fresh: LinkInfo, heardAt: number) => void): RaceDay {
  const heard = useMemo(() => fromLink(link, heardAt), [link, heardAt]);
  // From the start time on the server's clock, not the answer's `when`: a copy kept on the phone may be days old.
  const live = useRaceWhen(link.race.startsAt, heard.clock) === 'live';
  // The link's answer was just read when the page opened live; a race that turns live later is asked about at once.
  const openedLive = useRef(live);
  const rate = heard.clock.rate;
  useEffect(() => {
    if (!live) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const refresh = async () => {
      clearTimeout(timer);
      if (document.visibilityState !== 'visible') return;
      const answer = await getLink(token);
      if (stopped) return;
      // Offline or refused: keep what was shown, and try again on the next tick.
      if (answer.ok) {
        // A start moved later ends this loop (the race is not live on the new start); the clock starts it again.
        const at = Date.now();
        onFresh(answer.value, at);
        // Not keeping a copy only costs offline use later: the page shows what it has just heard.
        void saveLink(token, answer.value, at).catch(() => undefined);
      }
      timer = setTimeout(() => void refresh(), every);
    };
    const every = phoneMs(rate, PROGRESS_REFRESH_MS, MIN_PROGRESS_REFRESH_MS);
    const onVisible = () => void refresh();
    if (openedLive.current) timer = setTimeout(() => void refresh(), every);
    else void refresh();
    openedLive.current = false;
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [token, live, rate, onFresh]);
  return live ? heard : { clock: heard.clock };
}

/** The ids of the markers the runner has passed: the last one passed and every one before it. */
export function usePassedMarkers(markers: LinkInfo['markers'], progress: Progress | undefined): ReadonlySet<string> {
  const last = progress?.lastMarker?.id;
  return useMemo(() => {
    const upTo = markers.findIndex((m) => m.id === last);
    return new Set(upTo < 0 ? [] : markers.slice(0, upTo + 1).map((m) => m.id));
  }, [markers, last]);
}

/** "Alex passed Mile 12 at 10:41 AM.", once the runner has passed a marker. */
export function ProgressLine({ runner, progress, timeZone }: { runner: string; progress: Progress | undefined; timeZone: string }) {
  const t = useT();
  const lang = useLanguage();
  const last = progress?.lastMarker;
  if (!last) return null;
  const time = raceClockTime(Date.parse(last.passedAt), timeZone, LANGUAGE_RULES[lang].clock);
  return (
    <p className="rec-progress" role="status">
      {t('progress.passed', { runner, marker: markerName(last.id, last.label), time })}
    </p>
  );
}

/** When the chosen marker is behind the runner: the note plays as soon as it reaches them. */
export function ProgressChoice({
  runner,
  marker,
  markers,
  passed,
}: {
  runner: string;
  marker: string;
  markers: LinkInfo['markers'];
  passed: ReadonlySet<string>;
}) {
  const t = useT();
  const chosen = markers.find((m) => m.id === marker);
  if (!chosen || !passed.has(chosen.id)) return null;
  return <p className="rec-progress-choice">{t('progress.passedChosen', { runner, marker: markerName(chosen.id, chosen.label) })}</p>;
}
