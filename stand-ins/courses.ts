/**
 * Courses made in the tests, whose right answers are known: geodesic legs sampled every few metres
 * (every sample lies on its leg's geodesic, so the exact point at any distance along is known from
 * GeographicLib on the leg itself), and the GPX text that carries them.
 */
import geodesic from 'geographiclib-geodesic';
import type { Position } from 'geojson';

const { Geodesic } = geodesic;
const WGS84 = Geodesic.WGS84;

export interface Leg {
  meters: number;
  /** The exact point `meters` along the leg, [lon, lat]. */
  at(meters: number): Position;
}

const legOf = (line: ReturnType<typeof WGS84.DirectLine>, meters: number): Leg => ({
  meters,
  at(d) {
    const p = line.Position(d);
    return [p.lon2!, p.lat2!];
  },
});

/** A geodesic leg from [lon, lat] on an azimuth (degrees from north) over so many metres. */
export const legFrom = ([lon, lat]: Position, azimuth: number, meters: number): Leg => legOf(WGS84.DirectLine(lat!, lon!, azimuth, meters), meters);

/** The geodesic leg between two points. */
export function legBetween([lon1, lat1]: Position, [lon2, lat2]: Position): Leg {
  const line = WGS84.InverseLine(lat1!, lon1!, lat2!, lon2!);
  return legOf(line, line.s13);
}

/** A course of legs end to end: its track sampled about every `step` metres, and the exact point at any distance along it. */
export function courseOf(legs: Leg[], step = 50) {
  const track: Position[] = [legs[0]!.at(0)];
  for (const leg of legs) {
    const samples = Math.max(1, Math.round(leg.meters / step));
    for (let i = 1; i <= samples; i++) track.push(leg.at((leg.meters * i) / samples));
  }
  const meters = legs.reduce((sum, leg) => sum + leg.meters, 0);
  return {
    track,
    meters,
    at(distance: number): Position {
      let left = distance;
      for (const leg of legs) {
        if (left <= leg.meters) return leg.at(left);
        left -= leg.meters;
      }
      return legs.at(-1)!.at(legs.at(-1)!.meters);
    },
  };
}

/** Metres between two [lon, lat] points on the ellipsoid. */
export const metersBetween = ([lon1, lat1]: Position, [lon2, lat2]: Position): number => WGS84.Inverse(lat1!, lon1!, lat2!, lon2!).s12!;

const pointTag = (tag: string, [lon, lat, ele]: Position) => `<${tag} lat="${lat}" lon="${lon}">${ele === undefined ? '' : `<ele>${ele}</ele>`}</${tag}>`;

/** A GPX 1.1 document: tracks (each a list of segments), routes and waypoints, as a course planner writes them. */
export function gpxText({ tracks = [], routes = [], waypoints = [] }: { tracks?: Position[][][]; routes?: Position[][]; waypoints?: Position[] }): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<gpx version="1.1" creator="MileNotes tests" xmlns="http://www.topografix.com/GPX/1/1">',
    ...waypoints.map((point) => pointTag('wpt', point)),
    ...routes.map((route) => `<rte><name>Route</name>${route.map((point) => pointTag('rtept', point)).join('')}</rte>`),
    ...tracks.map(
      (segments) =>
        `<trk><name>Course</name>${segments.map((segment) => `<trkseg>${segment.map((point) => pointTag('trkpt', point)).join('\n')}</trkseg>`).join('')}</trk>`,
    ),
    '</gpx>',
  ].join('\n');
}
