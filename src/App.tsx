import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { Route, Routes } from 'react-router-dom';
import { LoadingScreen } from './components/LoadingScreen';
import { loadChunk } from './lazyChunk';
import * as home from './pages/HomePage';
import * as notFound from './pages/NotFoundPage';
import * as privacy from './pages/PrivacyPage';
import * as terms from './pages/TermsPage';
import { RouteErrorBoundary } from './RouteErrorBoundary';
import './styles/site.css';

const onServer = typeof window === 'undefined';

// The recorder is its own chunk, fetched only on /r/:token. The prerendered shell shows the
// spinner; on the server the import never starts.
const Recorder = lazy(() =>
  onServer ? new Promise<never>(() => {}) : loadChunk('recorder', () => import('./recorder/index')),
);

/** Keeps document.title right on client-side navigation; the prerender writes it into the HTML. */
function Titled({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = title;
  }, [title]);
  return children;
}

export const RECORDER_TITLE = 'Record a voice note · MileNotes';

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/" element={<Titled title={home.title}><home.HomePage /></Titled>} />
      <Route path="/terms" element={<Titled title={terms.title}><terms.TermsPage /></Titled>} />
      <Route path="/privacy" element={<Titled title={privacy.title}><privacy.PrivacyPage /></Titled>} />
      <Route
        path="/r/:token"
        element={
          <Titled title={RECORDER_TITLE}>
            <RouteErrorBoundary>
              <Suspense fallback={<LoadingScreen />}>
                <Recorder />
              </Suspense>
            </RouteErrorBoundary>
          </Titled>
        }
      />
      <Route path="*" element={<Titled title={notFound.title}><notFound.NotFoundPage /></Titled>} />
    </Routes>
  );
}
