import { RACE_REQUEST_MAILTO } from '../../config';

export function RaceRequest() {
  return (
    <section className="section" aria-labelledby="request-title">
      <div className="request">
        <h2 id="request-title" className="request__title">
          Don't see your race?
        </h2>
        <p className="request__text">Tell us. We're adding new races every day!</p>
        <a className="button button--light" href={RACE_REQUEST_MAILTO}>
          Get in touch
        </a>
      </div>
    </section>
  );
}
