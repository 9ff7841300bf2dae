import { isoDateParts } from '../../contract/dates.js';
import type { LinkInfo } from '../outbox/notes.js';
import type { Translate } from '../i18n/index.js';
import { useT } from '../i18n/useLanguage.js';
import type { PageClock } from '../serverClock.js';
import { useRaceWhen } from './useRaceWhen.js';

/**
 * 'Sunday, October 11, 2026': race day as the race's city calls it. `date` is already local to
 * the race, so its weekday is computed on the calendar alone, in no time zone (the phone's
 * would move a Sydney morning to the day before in America), and without Intl (contract/dates.ts).
 */
function raceDay(t: Translate, date: string): string {
  const { year, month, day } = isoDateParts(date);
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return t(`raceClock.date.${month}` as 'raceClock.date.1', {
    weekday: t(`raceClock.weekday.${weekday}` as 'raceClock.weekday.0'),
    day: day === 1 ? t('date.firstDay') : day,
    year,
  });
}

/** One sentence above the form saying where the runner's race stands: before it, during it, or over. The race's name is the header's. */
export function RaceClock({ runner, race, clock }: { runner: string; race: LinkInfo['race']; clock: PageClock }) {
  const t = useT();
  const when = useRaceWhen(race.startsAt, clock);
  // A link kept on the phone by a version from before the race clock has no start: say nothing rather than 'over'.
  if (Number.isNaN(Date.parse(race.startsAt))) return null;
  const sentence =
    when === 'upcoming'
      ? t('raceClock.upcoming', { runner, date: raceDay(t, race.date) })
      : when === 'live'
        ? t('raceClock.live', { runner })
        : t('raceClock.past', { runner });
  return (
    <p className="rec-muted" data-testid="race-clock" data-when={when}>
      {sentence}
    </p>
  );
}
