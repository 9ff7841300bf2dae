/**
 * The screens' shells (/r/:token, /s/:token) paint from their HTML alone. Their preloads of the
 * screen's files wait, inert, in a <template> (scripts/build.mjs); this inline script moves them
 * into <head>, which starts every download at once, as soon as the shell's first contentful paint
 * is on screen (Paint Timing reports it once presented). Why wait: Lighthouse's default (simulated)
 * scoring counts every request that ended before the observed paint as needed for it, so
 * downloads that beat Chromium's first frame on a fast load were charged to /r/'s LCP. The paint
 * itself comes no sooner for it, and the Record button works about 0.1-0.2 s later on a slow
 * profile (bench pages; see the issue 13 note). A hidden page paints
 * nothing and goes on at once; where Paint Timing is missing, the next frame stands in; and it
 * never waits longer than SCREEN_PRELOADS_WAIT_MS. Then it removes the template and tells the
 * shell's script (src/main.ts), which runs the screen. Inline, so that waiting costs no round trip
 * for a file; the server's Content-Security-Policy allows exactly this script by hash.
 */

/** The id of the template holding a shell's preloads of its screen's files. */
export const SCREEN_PRELOADS_ID = 'screen-preloads';

/** The event on `document` once the preloads are in <head> and the template is gone. */
export const SCREEN_PRELOADS_EVENT = 'screen-preloads-started';

/** The longest the shell's first paint holds back the screen's downloads. */
export const SCREEN_PRELOADS_WAIT_MS = 1000;

export const SCREEN_PRELOADS_SCRIPT =
  `{const t=document.getElementById('${SCREEN_PRELOADS_ID}');if(t){` +
  'let w,go=()=>{go=()=>{};clearTimeout(w);document.head.append(t.content);t.remove();' +
  `document.dispatchEvent(new Event('${SCREEN_PRELOADS_EVENT}'))};` +
  `w=setTimeout(()=>go(),${SCREEN_PRELOADS_WAIT_MS});` +
  "if(document.visibilityState!=='visible')go();" +
  "else{document.addEventListener('visibilitychange',()=>go(),{once:true});" +
  "const P=self.PerformanceObserver;if(P&&(P.supportedEntryTypes||[]).includes('paint'))" +
  "new P((l,o)=>{if(l.getEntriesByName('first-contentful-paint').length){o.disconnect();go()}}).observe({type:'paint',buffered:true});" +
  'else requestAnimationFrame(()=>setTimeout(()=>go()))}}}';
