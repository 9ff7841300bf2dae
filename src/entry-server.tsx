/** Prerender entry: renders each page to HTML at build time (scripts/build.mjs). */
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { AppRoutes, ChunkErrorTemplate } from './App';
import { HOME_SCREEN_TITLE, KEEPSAKE_TITLE, RECORDER_TITLE } from './shell';
import * as home from './pages/HomePage';
import * as notFound from './pages/NotFoundPage';
import * as privacy from './pages/PrivacyPage';
import * as terms from './pages/TermsPage';

import { NOT_FOUND_PAGE, PAGES as SITE_PAGES, type PageName } from '../contract/paths';

export { RECORDER_RENDERER, RECORDER_SCREEN_MARKS } from '../contract/recorderPage';
export { SCREEN_FILES_ID } from './shell';
export { TODAY_SCRIPT } from '../contract/today';
export { REGISTER_WORKER_SCRIPT } from '../contract/registerWorker';

export interface PrerenderedPage {
  url: string;
  file: string;
  title: string;
  description: string;
  /** Pages showing today's date get the inline script that writes it before paint. */
  showsToday: boolean;
}

type PageHead = Pick<PrerenderedPage, 'title' | 'description' | 'showsToday'>;

/** Each page's head; which URL renders into which file is contract/paths.ts's to say. */
const HEADS: Record<PageName, PageHead> = {
  home: { title: home.title, description: home.description, showsToday: false },
  terms: { title: terms.title, description: terms.description, showsToday: true },
  privacy: { title: privacy.title, description: privacy.description, showsToday: true },
  recorder: { title: RECORDER_TITLE, description: 'Record a voice note for a marathon runner.', showsToday: false },
  keepsake: { title: KEEPSAKE_TITLE, description: 'Voice notes a marathon runner chose to share.', showsToday: false },
  homeScreen: { title: HOME_SCREEN_TITLE, description: 'The runners you record voice notes for on this phone.', showsToday: false },
};

export const PAGES: PrerenderedPage[] = [
  ...(Object.keys(SITE_PAGES) as PageName[]).map((name) => ({ url: SITE_PAGES[name].url, file: SITE_PAGES[name].file, ...HEADS[name] })),
  { ...NOT_FOUND_PAGE, title: notFound.title, description: notFound.description, showsToday: false },
];

/** What a screen's shell carries after #root: its error screen in waiting. */
export const SHELL_TEMPLATES = renderToString(<ChunkErrorTemplate />);

export function render(url: string): string {
  return renderToString(
    <StrictMode>
      <StaticRouter location={url}>
        <AppRoutes />
      </StaticRouter>
    </StrictMode>,
  );
}
