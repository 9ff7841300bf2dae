/**
 * A race's course measured on the WGS84 ellipsoid: its length, and each marker's point at its
 * distance along the path (never as the crow flies from the start: a loop passes its start again).
 *
 * Distances come from GeographicLib (Karney's geodesics), not @turf/length and @turf/along: turf
 * measures on a sphere, which over a marathon was measured here to be off the ellipsoid by up to
 * 0.56 % (north-south at the equator), 0.32 % east-west at Berlin's latitude and 0.25 % at
 * Sydney's, past the 0.2 % a marker must be placed within.
 */
import geodesic from 'geographiclib-geodesic';
import type { LineString, Position } from 'geojson';
import { MARATHON_METERS, type Marker } from '../../contract/markers.js';
import { appCourse, roundPosition, type AppCourse, type MarkerPoint } from './app-course.js';
import { CourseRefused } from './refused.js';

const { Geodesic } = geodesic;
const WGS84 = Geodesic.WGS84;

/** A GPX is an approximation of the certified course; more than 1 % off is the wrong file. */
export const COURSE_LENGTH_TOLERANCE = 0.01;

export interface PlacedMarker extends Marker {
  lat: number;
  lon: number;
}

export interface Course {
  /** The track's length on the ellipsoid, in metres. */
  lengthMeters: number;
  /** The markers given, in their order, each with its point (degrees, rounded to 1e-6, about 0.1 m). */
  markers: PlacedMarker[];
  /** What the app downloads: the course simplified, with every marker's point as a vertex. */
  app: AppCourse;
}

/** Where a distance along the path falls, and that distance (clamped to the path). */
export interface Placement extends MarkerPoint {
  meters: number;
}

/**
 * The course of a race from its track and markers. The finish is placed at the track's end: that is
 * where the finish line is on the ground, whatever the track's length, where 42,195 m along a
 * track 0.8 % long would fall 340 m before it. Every other marker is at its own distance along the
 * track, or at the end if the track is shorter than that (mile 26 on a track 0.9 % short).
 */
export function courseFrom(line: LineString, markers: readonly Marker[]): Course {
  const path = measure(line.coordinates);
  const lengthMeters = path.cumulative.at(-1)!;
  refuseWrongLength(lengthMeters);
  const placements = markers.map((marker) => path.at(marker.distanceMeters >= MARATHON_METERS ? lengthMeters : marker.distanceMeters));
  return {
    lengthMeters,
    markers: markers.map((marker, i) => {
      const [lon, lat] = placements[i]!.position;
      return { ...marker, lat: lat!, lon: lon! };
    }),
    app: appCourse(
      line.coordinates,
      [...placements].sort((a, b) => a.meters - b.meters),
    ),
  };
}

function refuseWrongLength(meters: number): void {
  const off = meters / MARATHON_METERS - 1;
  if (Math.abs(off) <= COURSE_LENGTH_TOLERANCE) return;
  const km = (meters / 1000).toFixed(2);
  throw new CourseRefused(
    'wrong_length',
    `The course is ${km} km long, ${(Math.abs(off) * 100).toFixed(1)} % ${off < 0 ? 'short of' : 'longer than'} a marathon (42.195 km); it must be within ${COURSE_LENGTH_TOLERANCE * 100} %. Check that the GPX is the whole course of this race, from start to finish, and nothing more.`,
  );
}

export interface MeasuredPath {
  /** Distance from the start to each vertex, in metres on the ellipsoid. */
  cumulative: number[];
  /** The point at `meters` along the path (clamped to its ends), rounded as markers are. */
  at(meters: number): Placement;
}

/** The path's vertices with their distances from the start, ready to place points along it. */
export function measure(coordinates: readonly Position[]): MeasuredPath {
  const cumulative = [0];
  for (let i = 1; i < coordinates.length; i++) {
    const [lon1, lat1] = coordinates[i - 1]!;
    const [lon2, lat2] = coordinates[i]!;
    cumulative.push(cumulative[i - 1]! + WGS84.Inverse(lat1!, lon1!, lat2!, lon2!, Geodesic.DISTANCE).s12!);
  }
  const last = coordinates.length - 1;
  return {
    cumulative,
    at(meters) {
      if (meters >= cumulative[last]!) return { segment: last, position: roundPosition(coordinates[last]!), meters: cumulative[last]! };
      if (meters <= 0) return { segment: 0, position: roundPosition(coordinates[0]!), meters: 0 };
      // The last vertex at or before the distance: binary search, the path can have 100,000 of them.
      let low = 0;
      let high = last;
      while (high - low > 1) {
        const mid = (low + high) >> 1;
        if (cumulative[mid]! <= meters) low = mid;
        else high = mid;
      }
      const [lon1, lat1] = coordinates[low]!;
      const [lon2, lat2] = coordinates[low + 1]!;
      const point = WGS84.InverseLine(lat1!, lon1!, lat2!, lon2!).Position(meters - cumulative[low]!);
      return { segment: low, position: roundPosition([point.lon2!, point.lat2!]), meters };
    },
  };
}
