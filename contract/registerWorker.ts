import { CACHE_LATER } from './messages.js';
import { SCREEN_PAGES } from './paths.js';

/**
 * Every page's inline script that registers the service worker from the site root once the page
 * has loaded (the outcome is only logged). A marketing page then asks the worker to cache
 * the rest of the site for offline use (sw/laterCache.ts); the recorder and keepsake screens and the
 * home screen (/home-screen) never do, so a friend on one bar spends nothing on
 * pictures. Inline, because an external file cost the home page's first paint on a slow phone
 * while doing nothing for it; the server's Content-Security-Policy allows exactly this script by hash.
 */
export const REGISTER_WORKER_SCRIPT =
  "addEventListener('load',()=>{const w=navigator.serviceWorker;" +
  "if(!w){console.info('Service worker not supported in this browser');return}" +
  "w.register('/sw.js',{scope:'/'}).then(r=>{console.info('Service worker registered with scope',r.scope);" +
  `if(!${SCREEN_PAGES}.test(location.pathname))w.ready.then(s=>s.active&&s.active.postMessage({type:'` +
  CACHE_LATER +
  "'}))}," +
  "e=>console.error('Service worker registration failed',e))})";
