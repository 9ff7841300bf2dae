import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import Recorder from './recorder/index';
import { startLanguage } from './i18n/index';
import { Titled } from './i18n/useLanguage';
import { RouteErrorBoundary } from './RouteErrorBoundary';

/**
 * Replaces the prerendered spinner with the recorder screen, in this phone's language once its
 * words are in (the shell asked for them beside this chunk). The shell has matched the path and
 * read the token: one screen needs no router, and leaving it out keeps it off a slow first visit.
 */
export async function mountRecorder(root: HTMLElement, token: string): Promise<void> {
  await startLanguage();
  createRoot(root).render(
    <StrictMode>
      <Titled title="title.recorder">
        <RouteErrorBoundary>
          <Recorder token={token} />
        </RouteErrorBoundary>
      </Titled>
    </StrictMode>,
  );
}
