import { StrictMode, useEffect, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Route, Routes } from 'react-router-dom';
import Recorder from './recorder/index';
import { RouteErrorBoundary } from './RouteErrorBoundary';
import { RECORDER_TITLE } from './shell';

function Titled({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = title;
  }, [title]);
  return children;
}

/** Replaces the prerendered spinner with the recorder screen. */
export function mountRecorder(root: HTMLElement): void {
  createRoot(root).render(
    <StrictMode>
      <BrowserRouter>
        <Routes>
          <Route
            path="/r/:token"
            element={
              <Titled title={RECORDER_TITLE}>
                <RouteErrorBoundary>
                  <Recorder />
                </RouteErrorBoundary>
              </Titled>
            }
          />
        </Routes>
      </BrowserRouter>
    </StrictMode>,
  );
}
