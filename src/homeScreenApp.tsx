import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import HomeScreen from './homeScreen/index';
import './homeScreen/words';
import { startLanguage } from './i18n/index';
import { Titled } from './i18n/useLanguage';
import { RouteErrorBoundary } from './RouteErrorBoundary';

/**
 * Replaces the prerendered spinner of /home-screen (where the installed app starts) with the list of
 * this phone's runners, in its language once the words are in (the shell asked for them beside this chunk).
 */
export async function mountHomeScreen(root: HTMLElement): Promise<void> {
  await startLanguage();
  createRoot(root).render(
    <StrictMode>
      <Titled title="title.homeScreen">
        <RouteErrorBoundary>
          <HomeScreen />
        </RouteErrorBoundary>
      </Titled>
    </StrictMode>,
  );
}
