/**
 * When the runner is expected at the markers ahead, on the recorder: the server's clock
 * (./serverClock.ts) moving on by itself, the marker a note sent now can still reach in time, and the lines under the
 * picker: how old the times are, why a marker is suggested, and a warning (never a refusal) when
 * the chosen marker is likely to be passed before the note reaches the runner's phone.
 */
import { useEffect, useMemo, useState } from 'react';
import type { Estimates } from '../../contract/api.js';
import type { LinkInfo } from '../outbox/notes.js';
import { expectedTimes, minutesOld, STALE_AFTER_MINUTES, suggestedMarker, tooNear } from './estimates.js';
import { LANGUAGE_RULES } from '../i18n/format.js';
import { markerName, tn } from '../i18n/index.js';
import { useLanguage, useT } from '../i18n/useLanguage.js';
import { raceClockTime } from './raceTime.js';
import { phoneMs, type PageClock } from '../serverClock.js';

/** How often the advice looks at the clock again, in the race's time: a marker is minutes apart, and the age is said in minutes. */
export const ETA_TICK_MS = 30_000;
/** Never more often than this, however fast the server's clock runs (the demo's). */
const MIN_ETA_TICK_MS = 1_000;

/** What the picker and the lines below it need: the times, the suggestion, and the clock they were judged by. */
export interface Eta {
  times: ReadonlyMap<string, number>;
  suggested?: string;
  now: number;
  estimates?: Estimates;
}

/** The estimates judged against the server's clock, judged again every ETA_TICK_MS of it while there are any. */
export function useEta(markers: LinkInfo['markers'], estimates: Estimates | undefined, clock: PageClock): Eta {
  const [now, setNow] = useState(clock.now);
  const times = useMemo(() => expectedTimes(estimates), [estimates]);
  const any = times.size > 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: new estimates are judged at once against the clock now, not at the next tick.
  useEffect(() => {
    if (!any) return undefined;
    setNow(clock.now());
    const timer = setInterval(() => setNow(clock.now()), phoneMs(clock.rate, ETA_TICK_MS, MIN_ETA_TICK_MS));
    return () => clearInterval(timer);
  }, [any, estimates, clock]);
  return { times, suggested: suggestedMarker(markers, times, now), now, estimates };
}

/** Writes an instant as a time of day in the race's zone, as the language in use reads a clock. */
export function useRaceTime(timeZone: string): (ms: number) => string {
  const clock = LANGUAGE_RULES[useLanguage()].clock;
  return (ms) => raceClockTime(ms, timeZone, clock);
}

interface Props {
  runner: string;
  marker: string;
  markers: LinkInfo['markers'];
  eta: Eta;
  timeZone: string;
}

/** Under the picker: the times' age, then why the chosen marker is suggested or why it may be too near. */
export function EstimateLines({ runner, marker, markers, eta, timeZone }: Props) {
  const t = useT();
  const timeOf = useRaceTime(timeZone);
  if (!eta.estimates || eta.times.size === 0) return null;
  const madeAt = timeOf(Date.parse(eta.estimates.madeAt));
  const age = minutesOld(eta.estimates, eta.now);
  const name = (id: string) => markerName(id, markers.find((m) => m.id === id)?.label);
  const at = eta.times.get(marker);
  const time = at === undefined ? undefined : timeOf(at);
  return (
    <div className="rec-eta" data-testid="eta">
      <p className="rec-eta-age" data-testid="eta-age">
        {age >= STALE_AFTER_MINUTES ? tn('eta.stale', age, { time: madeAt }) : t('eta.asOf', { time: madeAt })}
      </p>
      {time !== undefined && at !== undefined && tooNear(at, eta.now) ? (
        <p className="rec-eta-warning" data-testid="eta-warning">
          {t('eta.tooNear', { runner, marker: name(marker), time })}
          {eta.suggested && ` ${t('eta.tooNearTry', { marker: name(eta.suggested) })}`}
        </p>
      ) : time !== undefined && marker === eta.suggested ? (
        <p className="rec-eta-suggested" data-testid="eta-suggested">
          {t('eta.suggested', { runner, marker: name(marker), time })}
        </p>
      ) : null}
    </div>
  );
}
