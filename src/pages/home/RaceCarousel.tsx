import { raceTrackHtml, SPEC_RACE_CARDS } from '../../shared/raceCards';

/**
 * The cards are src/shared/raceCards.ts's markup, the one renderer of the track: the build writes
 * the spec's nine here, and the server puts the catalogue's races ahead in their place on every
 * request (server/routes/home-page.ts). CSS pauses the motion on hover and focus and turns it off
 * under reduced motion, where the first copy simply scrolls.
 */
export function RaceCarousel() {
  return (
    <section className="section section--wide" aria-labelledby="races-title">
      <h2 id="races-title" className="section__title">Upcoming Events</h2>
      <p className="section__lead">Runners are collecting notes for these races right now.</p>
      <div className="carousel" tabIndex={0} role="region" aria-label="Upcoming races">
        {/* Escaped by raceTrackHtml; the spec's nine are our own text in any case. */}
        <div className="carousel__track" dangerouslySetInnerHTML={{ __html: raceTrackHtml(SPEC_RACE_CARDS) }} />
      </div>
    </section>
  );
}
