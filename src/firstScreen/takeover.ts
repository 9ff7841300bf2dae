/**
 * How React takes over the recorder screen the server drew from the first screen's script
 * (./screen.ts): an event on the screen, so the two share no module (the script is inlined into
 * r.html; the React chunk is a file of its own).
 */

/** Sent to the drawn screen as React takes it over; the first screen's script lets go on it. */
export const TAKEOVER_EVENT = 'milenotes:takeover';

/** The screen the server drew, if this page has one. */
export const drawnScreen = (root: ParentNode): HTMLElement | null => root.querySelector<HTMLElement>('main[data-screen="recorder"]');

/** React is taking the screen over: the first screen's script lets go of it, leaving it as it stands. */
export function takeOverFirstScreen(screen: HTMLElement): void {
  screen.dispatchEvent(new Event(TAKEOVER_EVENT));
}
