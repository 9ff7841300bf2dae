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

/** Where a marker is: a mile or a kilometre of the course and its number, or the finish. */
export type MarkerPlace = { unit: DistanceUnit; n: number } | { unit: 'finish' };

/** A marker's id, 'mi-13', 'km-5' or 'finish': made here only, and read back by markerPlace. */
const markerId = (place: MarkerPlace): string => (place.unit === 'finish' ? 'finish' : `${place.unit}-${place.n}`);

/** Where the marker of an id is ('mi-20': mile 20); undefined for an id of no marker's shape. */
export function markerPlace(id: string): MarkerPlace | undefined {
  if (id === 'finish') return { unit: 'finish' };
  const match = /^(mi|km)-(\d+)$/.exec(id);
  return match ? { unit: match[1] as DistanceUnit, n: Number(match[2]) } : undefined;
}

/** Miles 1 to 26, kilometres every 5 where the race has them, and the finish, ordered by distance. */
export function markersFor(units: readonly DistanceUnit[]): Marker[] {
  const markers: Marker[] = [];
  for (let mile = 1; mile <= 26; mile++) {
    markers.push({ id: markerId({ unit: 'mi', n: mile }), label: `Mile ${mile}`, distanceMeters: Math.round(mile * METERS_PER_MILE) });
  }
  if (units.includes('km')) {
    for (let km = 5; km <= 40; km += 5) {
      markers.push({ id: markerId({ unit: 'km', n: km }), label: `${km} km`, distanceMeters: km * 1000 });
    }
  }
  markers.sort((a, b) => a.distanceMeters - b.distanceMeters);
  markers.push({ id: markerId({ unit: 'finish' }), label: 'Finish', distanceMeters: MARATHON_METERS });
  return markers;
}

// Made when the module loads; marked pure, so a page that only reads ids (markerPlace) leaves them out of its bundle.
const ALL_MARKERS = /* @__PURE__ */ markersFor(['mi', 'km']);
const idPattern = (markers: readonly Marker[]) => `^(${markers.map((marker) => marker.id).join('|')})$`;

/** Every marker id any race can have, for validating requests: derived from the generator above. */
export const MARKER_ID_PATTERN = /* @__PURE__ */ idPattern(ALL_MARKERS);

/** 'Mile 13' for 'mi-13'; an id no race has is shown as it is. */
export const markerLabel = (id: string): string => ALL_MARKERS.find((m) => m.id === id)?.label ?? id;
