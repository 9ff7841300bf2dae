/** Prerender entry: renders each page to HTML at build time (scripts/build.mjs). */
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { AppRoutes } from './App';
import { KEEPSAKE_TITLE } from './keepsake/title';
import { RECORDER_TITLE } from './shell';
import * as home from './pages/HomePage';
import * as notFound from './pages/NotFoundPage';
import * as privacy from './pages/PrivacyPage';
import * as terms from './pages/TermsPage';

export { TODAY_SCRIPT } from './shared/today';
export { REGISTER_WORKER_SCRIPT } from './shared/registerWorker';

export interface PrerenderedPage {
  url: string;
  file: string;
  title: string;
  description: string;
  /** Pages showing today's date get the inline script that writes it before paint. */
  showsToday: boolean;
}

export const PAGES: PrerenderedPage[] = [
  { url: '/', file: 'index.html', title: home.title, description: home.description, showsToday: false },
  { url: '/terms', file: 'terms.html', title: terms.title, description: terms.description, showsToday: true },
  { url: '/privacy', file: 'privacy.html', title: privacy.title, description: privacy.description, showsToday: true },
  { url: '/r/_', file: 'r.html', title: RECORDER_TITLE, description: 'Record a voice note for a marathon runner.', showsToday: false },
  { url: '/s/_', file: 's.html', title: KEEPSAKE_TITLE, description: 'Voice notes a marathon runner chose to share.', showsToday: false },
  { url: '/__not-found', file: '404.html', title: notFound.title, description: notFound.description, showsToday: false },
];

export function render(url: string): string {
  return renderToString(
    <StrictMode>
      <StaticRouter location={url}>
        <AppRoutes />
      </StaticRouter>
    </StrictMode>,
  );
}
