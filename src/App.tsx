/**
 * Every page's markup, rendered to HTML at build time (src/entry-server.tsx). The marketing
 * pages need no JavaScript in the browser; only /r/:token loads React, as its own chunk.
 */
import { Route, Routes } from 'react-router-dom';
import { ChunkErrorScreen } from './components/ChunkErrorScreen';
import { LoadingScreen } from './components/LoadingScreen';
import * as home from './pages/HomePage';
import * as notFound from './pages/NotFoundPage';
import * as privacy from './pages/PrivacyPage';
import * as terms from './pages/TermsPage';
import { CHUNK_ERROR_TEMPLATE_ID, RECORDER_LEAD } from './shell';
import './styles/site.css';

/** The shell of an on-demand screen: the spinner until its chunk arrives (the build puts its error screen in waiting beside it: ChunkErrorTemplate). */
function ScreenShell({ lead }: { lead?: string }) {
  return <LoadingScreen lead={lead} />;
}

/**
 * The error screen a shell shows when its screen's chunk cannot load (src/chunkError.ts), in
 * waiting after #root: inside it, it would be taken for part of the recorder screen the server
 * draws there, which React takes over as it is.
 */
export function ChunkErrorTemplate() {
  return (
    <template id={CHUNK_ERROR_TEMPLATE_ID}>
      <ChunkErrorScreen onRetry={() => {}} />
    </template>
  );
}

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/" element={<home.HomePage />} />
      <Route path="/terms" element={<terms.TermsPage />} />
      <Route path="/privacy" element={<privacy.PrivacyPage />} />
      <Route path="/r/:token" element={<ScreenShell lead={RECORDER_LEAD} />} />
      <Route path="/s/:token" element={<ScreenShell />} />
      <Route path="/home-screen" element={<ScreenShell />} />
      <Route path="*" element={<notFound.NotFoundPage />} />
    </Routes>
  );
}
