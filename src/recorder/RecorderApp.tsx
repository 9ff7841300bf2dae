import { StrictMode } from 'react';
import { Titled } from '../i18n/useLanguage.js';
import { RouteErrorBoundary } from '../RouteErrorBoundary.js';
import Recorder from './index.js';
import type { Entered } from './RecorderScreen.js';
import type { CarriedLink } from './useLink.js';

/** The recorder screen as the server draws it for a link (src/entry-recorder.tsx) and the page runs it (src/recorderApp.tsx): one tree for both. */
export function RecorderApp({ token, carried, entered }: { token: string; carried?: CarriedLink; entered?: Entered }) {
  return (
    <StrictMode>
      <Titled title="title.recorder">
        <RouteErrorBoundary>
          <Recorder token={token} carried={carried} entered={entered} />
        </RouteErrorBoundary>
      </Titled>
    </StrictMode>
  );
}
