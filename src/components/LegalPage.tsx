import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { formatToday } from '../../contract/today';
import { SiteFooter } from './SiteFooter';
import { SiteHeader } from './SiteHeader';

export interface LegalSection {
  title: string;
  body: ReactNode;
}

/**
 * Layout of the Terms and the Privacy Policy. Sections are numbered here, from their order, so
 * the headings and the count can never disagree. 'Last updated' is the visitor's date: the
 * prerendered HTML carries an inline script that rewrites [data-today] before first paint.
 */
export function LegalPage({ title, intro, sections }: { title: string; intro: ReactNode; sections: LegalSection[] }) {
  return (
    <>
      <SiteHeader />
      <main className="legal">
        <Link to="/" className="back-link">
          <span aria-hidden="true">←</span> Back to home
        </Link>
        <h1 className="legal__title">{title}</h1>
        <p>
          Last updated:{' '}
          <time data-today suppressHydrationWarning>
            {formatToday()}
          </time>
        </p>
        <div className="legal__intro">{intro}</div>
        {sections.map((section, i) => (
          <section className="legal__section" key={section.title}>
            <h2>{`${i + 1}. ${section.title}`}</h2>
            {section.body}
          </section>
        ))}
      </main>
      <SiteFooter />
    </>
  );
}
