/** A GPX file (or a stored track) made into what the catalogue stores for a race: track, app course, length and marker points. */
import type { LineString } from 'geojson';
import type { DistanceUnit } from '../../contract/races.js';
import { markersFor } from '../../contract/markers.js';
import type { StoredCourse } from '../db/types.js';
import { courseFrom } from './course.js';
import { readGpx } from './gpx.js';

/** Throws CourseRefused (with a sentence for the operator) for a file that is not a marathon's course. */
export function storedCourse(gpx: Uint8Array | string, units: readonly DistanceUnit[]): StoredCourse {
  return courseFor(readGpx(gpx), units);
}

/** A track made into a course with these units' markers: a new course, or a stored one whose race changed its units. */
export function courseFor(line: LineString, units: readonly DistanceUnit[]): StoredCourse {
  const course = courseFrom(line, markersFor(units));
  return {
    line: line.coordinates,
    lengthMeters: course.lengthMeters,
    markers: course.markers.map(({ id, lat, lon }) => ({ id, lat, lon })),
    app: { json: course.app.json, etag: course.app.etag },
  };
}
