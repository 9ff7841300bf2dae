import { describe, expect, it } from 'vitest';
import { MarkerFences } from '../../reference-app/fences.js';
import { Player } from '../../reference-app/player.js';

// Three markers 1 km apart on a meridian: 1 km is about 0.008993 degrees of latitude.
const KM = 1000 / 111_195;
const markers = [1, 2, 3].map((n) => ({ id: `km-${n}`, distanceMeters: n * 1000, lat: n * KM, lon: 0 }));

describe('the reference app finding markers by position', () => {
  it('should pass a marker when a good fix is inside its fence, and not before', () => {
    const fences = new MarkerFences(markers);
    expect(fences.enter({ lat: 0.5 * KM, lon: 0, accuracy: 5 })).toEqual([]);
    expect(fences.enter({ lat: KM + 20 / 111_195, lon: 0, accuracy: 5 })).toEqual(['km-1']);
    expect(fences.enter({ lat: KM, lon: 0, accuracy: 5 })).toEqual([]);
    expect(fences.hasPassed('km-1')).toBe(true);
  });

  it('should pass every earlier marker when a later one is entered after a gap in fixes', () => {
    const fences = new MarkerFences(markers);
    expect(fences.enter({ lat: 3 * KM, lon: 0, accuracy: 5 })).toEqual(['km-1', 'km-2', 'km-3']);
    expect(fences.lastPassed()).toBe('km-3');
  });

  it('should not pass a marker on a fix too inaccurate to trust', () => {
    const fences = new MarkerFences(markers);
    expect(fences.enter({ lat: KM, lon: 0, accuracy: 65 })).toEqual([]);
  });
});

describe('the reference app playing notes', () => {
  it('should keep a note for its marker and play it once when the marker is passed', () => {
    const passed = new Set<string>();
    const player = new Player((m) => passed.has(m));
    expect(player.ready({ id: 'a', marker: 'km-2' }, 1)).toEqual([]);
    passed.add('km-1');
    expect(player.passed(['km-1'], 2)).toEqual([]);
    passed.add('km-2');
    expect(player.passed(['km-2'], 3)).toEqual([{ noteId: 'a', marker: 'km-2', heardAtMarker: 'km-2', atItsMarker: true, at: 3 }]);
    expect(player.ready({ id: 'a', marker: 'km-2' }, 4)).toEqual([]);
    expect(player.plays).toHaveLength(1);
  });

  it('should play at once a note that arrives after its marker was passed, heard at the last marker', () => {
    const passed = new Set(['km-1', 'km-2']);
    const player = new Player((m) => passed.has(m));
    player.passed(['km-1', 'km-2'], 1);
    expect(player.ready({ id: 'late', marker: 'km-1' }, 5)).toEqual([{ noteId: 'late', marker: 'km-1', heardAtMarker: 'km-2', atItsMarker: false, at: 5 }]);
  });

  it('should never play a note the runner removed', () => {
    const passed = new Set<string>();
    const player = new Player((m) => passed.has(m));
    player.ready({ id: 'gone', marker: 'km-1' }, 1);
    player.remove('gone');
    passed.add('km-1');
    expect(player.passed(['km-1'], 2)).toEqual([]);
    expect(player.ready({ id: 'gone', marker: 'km-1' }, 3)).toEqual([]);
  });
});
