import { describe, expect, it } from 'vitest';
import { MARKER_ID_PATTERN, markerLabel, markerPlace, markersFor } from '../../contract/markers.js';

const pattern = new RegExp(MARKER_ID_PATTERN);
const everyId = new Set(markersFor(['mi', 'km']).map((marker) => marker.id));

describe('marker ids', () => {
  it('should accept every id the generator makes, for miles-only and mixed races', () => {
    for (const units of [['mi'], ['km'], ['mi', 'km']] as const) {
      for (const { id } of markersFor(units)) expect(id).toMatch(pattern);
    }
  });

  it('should accept exactly the generated ids among every unit and distance up to 100 and near misses', () => {
    const candidates = ['finish', 'Finish', 'finish ', ' mi-1', 'mi-01', 'mi-1x', 'km-05', 'mile-1', ''];
    for (const unit of ['mi', 'km', 'MI', 'm']) {
      for (let n = -1; n <= 100; n++) candidates.push(`${unit}-${n}`);
    }
    const accepted = candidates.filter((candidate) => pattern.test(candidate));
    expect(new Set(accepted)).toEqual(everyId);
  });

  it('should read back where every id it makes is, and nothing from an id of another shape', () => {
    expect([...everyId].map(markerPlace)).toEqual(
      markersFor(['mi', 'km']).map(({ label }) =>
        label === 'Finish'
          ? { unit: 'finish' }
          : label.startsWith('Mile')
            ? { unit: 'mi', n: Number(label.slice(5)) }
            : { unit: 'km', n: Number(label.slice(0, -3)) },
      ),
    );
    for (const other of ['Finish', 'mile-1', 'mi-', 'mi-1x', ' km-5', '']) expect(markerPlace(other), other).toBeUndefined();
  });

  it('should label a marker id as a person reads it, and leave an unknown id as it is', () => {
    expect(markerLabel('mi-13')).toBe('Mile 13');
    expect(markerLabel('finish')).toBe('Finish');
    expect(markerLabel('mi-99')).toBe('mi-99');
  });
});
