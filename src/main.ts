/**
 * The only script every page loads: it registers the service worker and, on a screen that
 * needs one (/r/:token, /s/:token), fetches that screen (React and the screen) as one
 * on-demand chunk. Spinners and marketing pages are prerendered HTML and paint without it.
 */
import { showChunkError } from './chunkError';
import { loadChunk } from './lazyChunk';
import { registerServiceWorker } from './serviceWorker';
import './styles/site.css';

type Mount = (root: HTMLElement) => void;

const SCREENS: Array<{ path: RegExp; chunk: string; load: () => Promise<Mount> }> = [
  { path: /^\/r\/[^/]+\/?$/, chunk: 'recorder', load: () => import('./recorderApp').then((m) => m.mountRecorder) },
  { path: /^\/s\/[^/]+\/?$/, chunk: 'keepsake', load: () => import('./keepsake/keepsakeApp').then((m) => m.mountKeepsake) },
];

registerServiceWorker();

const root = document.getElementById('root')!;
const screen = SCREENS.find(({ path }) => path.test(window.location.pathname));
if (screen) {
  loadChunk(screen.chunk, screen.load).then(
    (mount) => mount(root),
    (error: unknown) => {
      console.error(error);
      showChunkError(root);
    },
  );
}
