/**
 * The only script every page loads: it registers the service worker and, on /r/:token,
 * fetches the recorder (React and the screen) as one on-demand chunk. The spinner and the
 * marketing pages are plain prerendered HTML, so they paint without waiting for this.
 */
import { showChunkError } from './chunkError';
import { loadChunk } from './lazyChunk';
import { registerServiceWorker } from './serviceWorker';
import './styles/site.css';

registerServiceWorker();

const root = document.getElementById('root')!;
if (/^\/r\/[^/]+\/?$/.test(window.location.pathname)) {
  loadChunk('recorder', () => import('./recorderApp')).then(
    ({ mountRecorder }) => mountRecorder(root),
    (error: unknown) => {
      console.error(error);
      showChunkError(root);
    },
  );
} else if (/^\/s\/[^/]+\/?$/.test(window.location.pathname)) {
  loadChunk('keepsake', () => import('./keepsake/keepsakeApp')).then(
    ({ mountKeepsake }) => mountKeepsake(root),
    (error: unknown) => {
      console.error(error);
      showChunkError(root);
    },
  );
}
