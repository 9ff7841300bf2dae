/**
 * The server's drawing of /r/:token's first screen: built by scripts/build.mjs into one
 * self-contained module under dist/.server/ and called by the server for each page it sends with a
 * live link (server/routes/recorder-page.ts). It is the very tree the page runs
 * (src/recorder/RecorderApp.tsx), drawn with the link's data in the sender's language, so React
 * takes over what is on screen instead of drawing it again; and the parts the first screen's script
 * shows before React comes (src/firstScreen/screen.ts), drawn the way React draws them.
 */
import { renderToString } from 'react-dom/server';
import type { RecorderPageInput, RecorderPageParts } from '../contract/recorderPage.js';
import { speak, t, type Lang } from './i18n/index.js';
import { acceptedLanguages, pickLanguage } from './i18n/languages.js';
import { en, type Catalogue } from './i18n/en.js';
import de from './i18n/de.js';
import es from './i18n/es.js';
import fr from './i18n/fr.js';
import { RecordPanel } from './recorder/RecordPanel.js';
import { RecorderApp } from './recorder/RecorderApp.js';
import { AlertLine } from './recorder/RecorderScreen.js';
import { pageClock } from './serverClock.js';
import { MIC_DENIED_TEMPLATE_ID, RECORDING_PANEL_TEMPLATE_ID } from './firstScreen/templates.js';

const CATALOGUES: Record<Lang, Catalogue> = { en: en as Catalogue, de, es, fr };

const noop = () => undefined;

export function renderRecorderPage({ token, link, acceptLanguage }: RecorderPageInput): RecorderPageParts {
  const lang = pickLanguage(null, acceptedLanguages(acceptLanguage ?? ''));
  // One render at a time on the server: the language in use is this request's until the next one.
  speak(lang, CATALOGUES[lang]);
  const heardAt = Date.now();
  const screen = renderToString(<RecorderApp token={token} carried={{ link, heardAt }} entered={{ name: '' }} />);
  const recordingPanel = renderToString(
    <RecordPanel
      state={{ phase: 'recording', startedAt: heardAt }}
      meter={noop}
      clock={pageClock(link.clock, heardAt)}
      sending={false}
      onRecord={noop}
      onStop={noop}
      onSend={noop}
      onRecordAgain={noop}
      onListen={noop}
    />,
  );
  const denied = renderToString(<AlertLine text={t('mic.denied')} />);
  return {
    lang,
    title: t('title.recorder'),
    screen,
    templates: `<template id="${RECORDING_PANEL_TEMPLATE_ID}">${recordingPanel}</template><template id="${MIC_DENIED_TEMPLATE_ID}">${denied}</template>`,
  };
}
