/** Course markers: the points on a course a note can be pinned to. Shared by server and recorder. */
import type { DistanceUnit } from './races.js';

export interface Marker {
  /** 'mi-13', 'km-5' or 'finish'. */
  id: string;
  label: string;
  distanceMeters: number;
}

const METERS_PER_MILE = 1609.344;
export const MARATHON_METERS = 42_195;

/** Miles 1 to 26, kilometres every 5 where the race has them, and the finish, ordered by distance. */
export function markersFor(units: readonly DistanceUnit[]): Marker[] {
  const markers: Marker[] = [];
  for (let mile = 1; mile <= 26; mile++) {
    markers.push({ id: `mi-${mile}`, label: `Mile ${mile}`, distanceMeters: Math.round(mile * METERS_PER_MILE) });
  }
  if (units.includes('km')) {
    for (let km = 5; km <= 40; km += 5) {
      markers.push({ id: `km-${km}`, label: `${km} km`, distanceMeters: km * 1000 });
    }
  }
  markers.sort((a, b) => a.distanceMeters - b.distanceMeters);
  markers.push({ id: 'finish', label: 'Finish', distanceMeters: MARATHON_METERS });
  return markers;
}

/** Every marker id any race can have, for validating requests: derived from the generator above. */
export const MARKER_ID_PATTERN = `^(${markersFor(['mi', 'km'])
  .map((marker) => marker.id)
  .join('|')})$`;

const ALL_MARKERS = markersFor(['mi', 'km']);

/** 'Mile 13' for 'mi-13'; an id no race has is shown as it is. */
export const markerLabel = (id: string): string => ALL_MARKERS.find((m) => m.id === id)?.label ?? id;
