import { describe, expect, it } from 'vitest';
import { LOOP_MIN_RACE_CARDS, raceTrackHtml, SPEC_RACE_CARDS, type RaceCard } from '../../contract/raceCards.js';

const card = (i: number): RaceCard => ({ name: `Marathon ${i}`, date: `2099-05-${String(i).padStart(2, '0')}`, image: '/races/generic.svg', alt: '' });
const cards = (n: number) => Array.from({ length: n }, (_, i) => card(i + 1));
const count = (html: string, what: string) => html.split(what).length - 1;

describe('the race carousel', () => {
  it('should show one race once, still: no copy to loop with', () => {
    const html = raceTrackHtml(cards(1));
    expect(count(html, '<li class="race-card">')).toBe(1);
    expect(count(html, '<ul class="race-list"')).toBe(1);
    expect(html).toContain('<section class="carousel carousel--still" tabindex="0" aria-label="Upcoming races">');
  });

  it('should show each race once while there are too few to fill a 1280 px window', () => {
    for (let n = 2; n < LOOP_MIN_RACE_CARDS; n++) {
      const html = raceTrackHtml(cards(n));
      expect(count(html, '<li class="race-card">'), `${n} races`).toBe(n);
      expect(html, `${n} races`).toContain('class="carousel carousel--still"');
    }
  });

  it('should loop five races and more: the list twice in a row, the copy hidden from assistive technology', () => {
    expect(LOOP_MIN_RACE_CARDS).toBe(5);
    for (const list of [cards(LOOP_MIN_RACE_CARDS), SPEC_RACE_CARDS]) {
      const html = raceTrackHtml(list);
      expect(count(html, '<li class="race-card">')).toBe(2 * list.length);
      expect(count(html, '<ul class="race-list">')).toBe(1);
      expect(count(html, '<ul class="race-list" aria-hidden="true">')).toBe(1);
      expect(html).toContain('<section class="carousel" tabindex="0" aria-label="Upcoming races">');
    }
  });
});
