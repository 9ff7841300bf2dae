import { StrictMode, useEffect, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import Recorder from './recorder/index';
import { RouteErrorBoundary } from './RouteErrorBoundary';
import { RECORDER_TITLE } from './shell';

function Titled({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = title;
  }, [title]);
  return children;
}

/**
 * Replaces the prerendered spinner with the recorder screen. The shell has matched the path and
 * read the token: one screen needs no router, and leaving it out keeps it off a slow first visit.
 */
export function mountRecorder(root: HTMLElement, token: string): void {
  createRoot(root).render(
    <StrictMode>
      <Titled title={RECORDER_TITLE}>
        <RouteErrorBoundary>
          <Recorder token={token} />
        </RouteErrorBoundary>
      </Titled>
    </StrictMode>,
  );
}
