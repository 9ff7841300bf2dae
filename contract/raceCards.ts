/**
 * The home page's race cards as HTML: the one renderer of the carousel's track. The build writes
 * the spec's nine into the prerendered page with it (src/pages/home/RaceCarousel.tsx) and the
 * server writes the catalogue's races ahead into that same place per request
 * (server/routes/home-page.ts), so both are the same markup. No React here: the server renders the
 * list without it, in microseconds. Every text and address is escaped here.
 */
import { formatRaceDate } from './dates.js';
import { RACES } from './races.js';

export interface RaceCard {
  name: string;
  /** Race day, local to the race (YYYY-MM-DD). */
  date: string;
  /** The picture's address on this site. */
  image: string;
  /** What the picture shows; '' when it says nothing the name does not (the generic picture, an operator's photo). */
  alt: string;
}

/** The carousel shows this many races at most: the next ones by date. */
export const MAX_RACE_CARDS = 9;

/** The picture of a race the operator gave none for. */
export const GENERIC_RACE_IMAGE = '/races/generic.svg';

/** The client's nine races, shown when no race of the catalogue is ahead. */
export const SPEC_RACE_CARDS: readonly RaceCard[] = RACES.map(({ name, date, image, imageAlt }) => ({ name, date, image, alt: imageAlt }));

/** Around the track's cards in the built page, so the server finds the part it replaces. */
export const RACE_TRACK_START = '<!--race-cards-->';
export const RACE_TRACK_END = '<!--/race-cards-->';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for an HTML element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function cardHtml(card: RaceCard, index: number, hidden: boolean): string {
  // The first cards show at once; the copy for the eyes only waits.
  const loading = !hidden && index < 4 ? 'eager' : 'lazy';
  return (
    '<li class="race-card">' +
    `<img class="race-card__image" src="${escapeHtml(card.image)}" alt="${hidden ? '' : escapeHtml(card.alt)}" width="320" height="200" loading="${loading}"/>` +
    '<div class="race-card__body">' +
    `<h3 class="race-card__name">${escapeHtml(card.name)}</h3>` +
    `<p class="race-card__date"><time datetime="${escapeHtml(card.date)}">${escapeHtml(formatRaceDate(card.date))}</time></p>` +
    '</div></li>'
  );
}

/**
 * The carousel loops with at least this many races, else shows each race once, still. The loop
 * slides the track by one copy of the list, so one copy must be as wide as the view, or its end
 * shows: a card and its gap take 17rem (272 px), so 2 cards fill a 390 px phone and 5 a 1280 px
 * window. Five loop on both; fewer fit a window side by side, and a phone scrolls them by hand.
 */
export const LOOP_MIN_RACE_CARDS = 5;

/**
 * The carousel: with enough races, the list twice in a row (the track slides by exactly one copy,
 * so the loop has no seam), the second copy for the eyes only; with fewer, the list once, still.
 * A scrollable region, named, and focusable so a keyboard can scroll it and pause the motion.
 */
export function raceTrackHtml(cards: readonly RaceCard[]): string {
  const loops = cards.length >= LOOP_MIN_RACE_CARDS;
  const list = (hidden: boolean) =>
    `<ul class="race-list"${hidden ? ' aria-hidden="true"' : ''}>${cards.map((card, i) => cardHtml(card, i, hidden)).join('')}</ul>`;
  return (
    `${RACE_TRACK_START}<section class="carousel${loops ? '' : ' carousel--still'}" tabindex="0" aria-label="Upcoming races">` +
    `<div class="carousel__track">${list(false)}${loops ? list(true) : ''}</div></section>${RACE_TRACK_END}`
  );
}
