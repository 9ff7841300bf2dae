import { appBadgeHtml } from '../../../contract/appBadge';
import { TAGLINE } from '../../config';

/**
 * The video is decoration over a poster that is also the section's CSS background, so the first
 * paint never waits for it; under reduced motion the CSS hides it and the still stays. Hidden from
 * screen readers, it is kept out of the tab order too (no controls, nothing to reach). The App Store
 * badge is contract/appBadge.ts's markup: built here for a site with no store page (the app is
 * coming), and written by the server in its place for the APP_STORE_URL it is given.
 */
export function Hero() {
  return (
    <section className="hero" aria-labelledby="hero-title">
      <video
        className="hero__video"
        autoPlay
        loop
        muted
        playsInline
        preload="metadata"
        poster="/media/hero-poster.webp"
        width="854"
        height="480"
        tabIndex={-1}
        aria-hidden="true"
      >
        <source src="/media/hero.mp4" type="video/mp4" />
      </video>
      <div className="hero__content">
        <p className="hero__eyebrow">For marathon runners and everyone cheering them on</p>
        <h1 id="hero-title" className="hero__title">
          {TAGLINE}
        </h1>
        <p className="hero__lead">The people who love you record voice notes at the miles you choose. On race day, each one plays the moment you reach it.</p>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: appBadgeHtml escapes the address, and the server renders the same markup in its place (one renderer). */}
        <div className="hero__app" dangerouslySetInnerHTML={{ __html: appBadgeHtml(undefined) }} />
      </div>
    </section>
  );
}
