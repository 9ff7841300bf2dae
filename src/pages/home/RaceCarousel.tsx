import { raceTrackHtml, SPEC_RACE_CARDS } from '../../../contract/raceCards';

/**
 * The cards are contract/raceCards.ts's markup, the one renderer of the track: the build writes
 * the spec's nine here, and the server puts the catalogue's races ahead in their place on every
 * request (server/routes/home-page.ts). CSS pauses the motion on hover and focus and turns it off
 * under reduced motion, where the first copy simply scrolls.
 */
export function RaceCarousel() {
  return (
    <section className="section section--wide" aria-labelledby="races-title">
      <h2 id="races-title" className="section__title">
        Upcoming Events
      </h2>
      <p className="section__lead">Runners are collecting notes for these races right now.</p>
      {/* A scrollable region: named, and focusable so a keyboard can scroll it and pause the motion (axe's scrollable-region-focusable). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll container must take focus for keyboard users to scroll it. */}
      <section className="carousel" tabIndex={0} aria-label="Upcoming races">
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: raceTrackHtml escapes every field, and the server renders the same markup in its place (one renderer). */}
        <div className="carousel__track" dangerouslySetInnerHTML={{ __html: raceTrackHtml(SPEC_RACE_CARDS) }} />
      </section>
    </section>
  );
}
