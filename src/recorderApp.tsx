import { createRoot, hydrateRoot } from 'react-dom/client';
import { drawnScreen, takeOverFirstScreen } from './firstScreen/takeover';
import { RecorderApp } from './recorder/RecorderApp';
import type { CarriedLink } from './recorder/useLink';
import { takeCarriedLink } from './linkPrefetch';
import { chooseLanguage, currentLanguage, LANGUAGES, type Lang, startLanguage } from './i18n/index';
import { phoneLanguage } from './i18n/languages';

const isLang = (value: unknown): value is Lang => (LANGUAGES as readonly unknown[]).includes(value);

/** A field of the drawn screen, as the person left it. */
const fieldValue = (screen: HTMLElement, selector: string) => screen.querySelector<HTMLInputElement | HTMLSelectElement>(selector)?.value;

/**
 * Takes over the screen the server drew (hydration: React adopts the very elements on screen, so
 * nothing moves, a field being typed in keeps its keyboard, and a recording under way goes on in
 * the same engine), in the language it was drawn in and with the fields as they stand; then the
 * language this phone chose, if another. React draws again what does not match (a recording
 * panel a tick apart, a refusal said otherwise) and says so in the console, not as an error.
 */
async function takeOver(root: HTMLElement, screen: HTMLElement, token: string, carried: CarriedLink): Promise<void> {
  const drawnIn = isLang(document.documentElement.lang) ? document.documentElement.lang : 'en';
  await startLanguage(undefined, drawnIn);
  const entered = { marker: fieldValue(screen, 'select[name="marker"]') ?? '', name: fieldValue(screen, 'input[name="from"]') ?? '' };
  const picked = fieldValue(screen, 'select[name="language"]');
  takeOverFirstScreen(screen);
  hydrateRoot(root, <RecorderApp token={token} carried={carried} entered={entered} />, {
    onRecoverableError: (error) => console.warn('The recorder was drawn again in the browser:', error instanceof Error ? error.message : error),
  });
  const wanted = isLang(picked) && picked !== drawnIn ? picked : phoneLanguage();
  if (wanted !== currentLanguage()) await chooseLanguage(wanted).catch(() => undefined);
}

/**
 * Takes over the recorder screen the server drew, or replaces the prerendered spinner of the
 * worker's shell with it, in this phone's language once its words are in (the shell asked for them
 * beside this chunk). The shell has matched the path and read the token: one screen needs no
 * router, and leaving it out keeps it off a slow first visit.
 */
export async function mountRecorder(root: HTMLElement, token: string): Promise<void> {
  const screen = drawnScreen(root);
  const carried = screen ? takeCarriedLink(token) : undefined;
  if (screen && carried) return takeOver(root, screen, token, carried);
  await startLanguage();
  createRoot(root).render(<RecorderApp token={token} />);
}
