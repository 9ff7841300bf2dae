/**
 * Distances as the demo says them: in the unit the race's course is marked in, with the last
 * marker passed in that same unit, so a course in miles never reads "2.7 km (past Mile 1)".
 */
import { markerLabel } from '../contract/markers.js';
import type { DistanceUnit } from '../contract/races.js';

const METERS_PER = { mi: 1609.344, km: 1000 } as const;

/**
 * The unit a race's course is marked in: a race that carries kilometre markers is one outside the
 * US, where courses are marked in kilometres; every other race is marked in miles.
 */
export const courseUnit = (units: readonly DistanceUnit[]): DistanceUnit => (units.includes('km') ? 'km' : 'mi');

/** '1.7 mi', '12.3 km': one decimal, as a runner's watch shows it. */
export const distanceText = (meters: number, unit: DistanceUnit): string => `${(meters / METERS_PER[unit]).toFixed(1)} ${unit}`;

/** The label of the last marker of `unit` (or the finish) at or before `meters`; null before the first. */
export function lastMarkerPassed(meters: number, markers: readonly { id: string; distanceMeters: number }[], unit: DistanceUnit): string | null {
  let passed: { id: string; distanceMeters: number } | undefined;
  for (const m of markers) {
    if ((m.id.startsWith(`${unit}-`) || m.id === 'finish') && m.distanceMeters <= meters && m.distanceMeters >= (passed?.distanceMeters ?? 0)) passed = m;
  }
  return passed ? markerLabel(passed.id) : null;
}
