import { Link } from 'react-router-dom';
import { SiteFooter } from '../components/SiteFooter';
import { SiteHeader } from '../components/SiteHeader';

export const title = 'Page not found · MileNotes';
export const description = 'This page does not exist on MileNotes.';

export function NotFoundPage() {
  return (
    <>
      <SiteHeader />
      <main className="not-found">
        <p className="not-found__code" aria-hidden="true">
          404
        </p>
        <h1 className="not-found__title">We can't find that page</h1>
        <p className="not-found__text">
          The address may be mistyped, or the page may have moved. If a runner sent you a link to record a voice note, open it again from their message.
        </p>
        <Link to="/" className="button">
          Back to the home page
        </Link>
      </main>
      <SiteFooter />
    </>
  );
}
