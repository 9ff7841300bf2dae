/**
 * 'Last updated' on the legal pages is the visitor's current date (SPEC §2). The pages are
 * prerendered at build time, so this inline script fills the date in before first paint;
 * React renders the same text when it navigates there. The server allows exactly this
 * script in its Content-Security-Policy by hash.
 */
const FORMAT = "'en-US',{year:'numeric',month:'long',day:'numeric'}";

export const TODAY_SCRIPT =
  `for(const e of document.querySelectorAll('[data-today]'))e.textContent=new Date().toLocaleDateString(${FORMAT})`;

export function formatToday(now: Date = new Date()): string {
  return now.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' });
}
