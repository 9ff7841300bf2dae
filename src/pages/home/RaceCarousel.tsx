import { formatRaceDate } from '../../shared/dates';
import { RACES, type Race } from '../../shared/races';

/** What each race's illustration shows, for people who cannot see it. */
const IMAGE_ALT: Record<string, string> = {
  'sydney-2025': 'Sydney Harbour Bridge and the Opera House',
  'berlin-2025': 'The Brandenburg Gate and the TV tower',
  'long-beach-2025': 'Palm trees and a lighthouse by the Pacific at sunset',
  'chicago-2025': 'The Chicago skyline over Lake Michigan',
  'marine-corps-2025': 'The Washington Monument, a flag and the Capitol dome',
  'raleigh-2025': 'A great oak and the Raleigh skyline',
  'nyc-2025': 'The Manhattan skyline and the Brooklyn Bridge',
  'every-womans-2025': 'Palm trees over a Florida lake at sunset',
  'philadelphia-2025': 'The Liberty Bell and the art museum steps',
};

function RaceList({ copy }: { copy: 'first' | 'second' }) {
  const hidden = copy === 'second';
  return (
    <ul className="race-list" aria-hidden={hidden ? 'true' : undefined}>
      {RACES.map((race: Race, i) => (
        <li className="race-card" key={race.id}>
          <img
            className="race-card__image"
            src={race.image}
            alt={hidden ? '' : IMAGE_ALT[race.id] ?? ''}
            width="320"
            height="200"
            loading={!hidden && i < 4 ? 'eager' : 'lazy'}
          />
          <div className="race-card__body">
            <h3 className="race-card__name">{race.name}</h3>
            <p className="race-card__date"><time dateTime={race.date}>{formatRaceDate(race.date)}</time></p>
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * The list is rendered twice in a row and the track slides by exactly one copy, so the loop has
 * no seam. The second copy is for the eyes only. CSS pauses the motion on hover and focus and
 * turns it off under reduced motion, where the first copy simply scrolls.
 */
export function RaceCarousel() {
  return (
    <section className="section section--wide" aria-labelledby="races-title">
      <h2 id="races-title" className="section__title">Upcoming Events</h2>
      <p className="section__lead">Runners are collecting notes for these races right now.</p>
      <div className="carousel" tabIndex={0} role="region" aria-label="Upcoming races">
        <div className="carousel__track">
          <RaceList copy="first" />
          <RaceList copy="second" />
        </div>
      </div>
    </section>
  );
}
