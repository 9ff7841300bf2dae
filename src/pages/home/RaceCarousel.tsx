import { raceTrackHtml, SPEC_RACE_CARDS } from '../../../contract/raceCards';

/**
 * The carousel is contract/raceCards.ts's markup, its one renderer: the build writes the spec's
 * nine here, and the server puts the catalogue's races ahead in their place on every request
 * (server/routes/home-page.ts). CSS pauses the motion on hover and focus and turns it off under
 * reduced motion, where the first copy simply scrolls, as the list of too few races to loop does.
 */
export function RaceCarousel() {
  return (
    <section className="section section--wide" aria-labelledby="races-title">
      <h2 id="races-title" className="section__title">
        Upcoming Events
      </h2>
      <p className="section__lead">Runners are collecting notes for these races right now.</p>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: raceTrackHtml escapes every field, and the server renders the same markup in its place (one renderer). */}
      <div dangerouslySetInnerHTML={{ __html: raceTrackHtml(SPEC_RACE_CARDS) }} />
    </section>
  );
}
