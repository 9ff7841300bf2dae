/** Reads a course from a GPX file: the one place MileNotes parses XML it did not write. */
import { gpx } from '@tmcw/togeojson';
import { DOMParser, type Element } from '@xmldom/xmldom';
import type { LineString, Position } from 'geojson';
import { CourseRefused } from './refused.js';

/**
 * A course planner's export of a marathon is 0.2-1 MB; a watch recording of one at a point a
 * second, with elevation and time, about 0.5 MB an hour. 5 MiB takes both with room to spare and
 * bounds the text we hold and scan.
 */
export const MAX_GPX_BYTES = 5 * 1024 * 1024;

/**
 * The DOM is the costly part: xmldom spends about 1 KB of heap and 10-20 µs per element (measured
 * here), so 5 MiB of `<a/>` would be 1.3 million elements and over a gigabyte. A GPX has 3 to 8
 * tags a point (4 to 14 with a watch's extensions); 300,000 tags is a course of 20,000-75,000
 * points, and caps the DOM at a few hundred MB and a few seconds.
 */
export const MAX_GPX_TAGS = 300_000;

const EXPORT_AGAIN = 'Export the course again as GPX 1.1 from your course planner or watch app.';
const SMALLER = 'Export it as a course or route rather than a recorded activity, or without timestamps, heart rate and other extensions.';

/** The course in a GPX file: its tracks' segments joined in order, or its routes if it has no track. */
export function readGpx(file: Uint8Array | string): LineString {
  const text = decode(file);
  refuseDoctype(text);
  refuseTooManyTags(text);
  const root = parseXml(text).documentElement!;
  if (root.localName !== 'gpx') {
    throw new CourseRefused(
      'not_gpx',
      `This file is XML but not GPX: its root element is <${root.nodeName.slice(0, 40)}>, where a GPX file has <gpx>. ${EXPORT_AGAIN}`,
    );
  }
  const path = pathOf(root);
  checkPoints(path);
  const coordinates: Position[] = [];
  for (const feature of gpx(root.ownerDocument!).features) {
    if (feature.properties?._gpxType !== path.kind || !feature.geometry) continue;
    const { geometry } = feature;
    const lines = geometry.type === 'LineString' ? [geometry.coordinates] : geometry.type === 'MultiLineString' ? geometry.coordinates : [];
    for (const [lon, lat] of lines.flat()) {
      // Elevation is dropped: markers are placed on the ground, and the app's copy stays small.
      const last = coordinates.at(-1);
      if (!last || last[0] !== lon || last[1] !== lat) coordinates.push([lon!, lat!]);
    }
  }
  if (coordinates.length < 2) {
    throw new CourseRefused(
      'too_few_points',
      `Every point of the ${path.noun} is at the same place: a course needs a start and a finish apart, and the points between that follow its streets.`,
    );
  }
  return { type: 'LineString', coordinates };
}

/** The refusal of a file of `bytes` bytes, over MAX_GPX_BYTES. */
export const tooLarge = (bytes: number): CourseRefused =>
  new CourseRefused(
    'too_large',
    `The file is ${(Math.ceil((bytes / 1024 / 1024) * 10) / 10).toFixed(1)} MiB; a course can be at most ${MAX_GPX_BYTES / 1024 / 1024} MiB. ${SMALLER}`,
  );

function decode(file: Uint8Array | string): string {
  // A string's UTF-16 length never exceeds its UTF-8 size, so the cheap test runs first.
  const bytes = typeof file === 'string' ? (file.length > MAX_GPX_BYTES ? file.length : Buffer.byteLength(file)) : file.byteLength;
  if (bytes > MAX_GPX_BYTES) throw tooLarge(bytes);
  if (typeof file === 'string') return file.replace(/^\uFEFF/, '');
  // GPX is UTF-8 in practice; UTF-16 is recognised by its byte order mark. Only coordinates are
  // read, so a name in another encoding costs nothing but a replacement character.
  const encoding = file[0] === 0xff && file[1] === 0xfe ? 'utf-16le' : file[0] === 0xfe && file[1] === 0xff ? 'utf-16be' : 'utf-8';
  return new TextDecoder(encoding).decode(file);
}

/**
 * Any DOCTYPE is refused before the parser sees the file. xmldom 0.9 never expands an entity a DTD
 * declares and never reads an external one (a reference to it stays as text and is reported as an
 * error, which parseXml turns into a refusal), so billion laughs and XXE fail there too. Refusing
 * up front is simpler to trust: it does not depend on a future xmldom keeping that behaviour, the
 * parser spends no time on an attacker's internal subset, and no real GPX loses anything, since
 * GPX is defined by an XML Schema, not a DTD. The word inside a comment is refused too: harmless.
 */
function refuseDoctype(text: string): void {
  if (/<!(DOCTYPE|ENTITY)/i.test(text)) {
    throw new CourseRefused('doctype', `The file declares a DOCTYPE or entities, which a GPX file never needs and we do not read. ${EXPORT_AGAIN}`);
  }
}

function refuseTooManyTags(text: string): void {
  let tags = 0;
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    if (++tags > MAX_GPX_TAGS) {
      throw new CourseRefused(
        'too_many_tags',
        `The file has more than ${MAX_GPX_TAGS.toLocaleString('en-US')} tags; a course can have at most that many. ${SMALLER}`,
      );
    }
  }
}

function parseXml(text: string) {
  let first: string | undefined;
  // Warnings (a replacement character, say) are let through; errors mean the XML is broken.
  const parser = new DOMParser({
    onError: (level, message, handler) => {
      if (level === 'warning') return;
      const line: unknown = handler?.locator?.lineNumber;
      first ??= `${typeof line === 'number' && line > 0 ? `line ${line}: ` : ''}${message.slice(0, 120)}`;
      throw new Error(message);
    },
  });
  try {
    return parser.parseFromString(text, 'text/xml');
  } catch (err) {
    // Anything the parser throws on this input, even a stack overflow, is a refusal of the input.
    throw new CourseRefused(
      'not_xml',
      `The file is not well-formed XML (${first ?? (err as Error).message.slice(0, 120)}). Check that it is the whole GPX file. ${EXPORT_AGAIN}`,
    );
  }
}

interface GpxPath {
  kind: 'trk' | 'rte';
  noun: 'track' | 'route';
  points: Element[];
}

/** The tracks' points, as togeojson reads them (trk > trkseg > trkpt); the routes' when there are none. */
function pathOf(root: Element): GpxPath {
  const tracks = Array.from(root.getElementsByTagName('trk'));
  const routes = Array.from(root.getElementsByTagName('rte'));
  if (tracks.length === 0 && routes.length === 0) {
    throw new CourseRefused(
      'no_track',
      'The GPX file has no track (<trk>) and no route (<rte>); waypoints alone are not a course. Export the course itself, as a track.',
    );
  }
  const trackPoints = tracks.flatMap((track) =>
    Array.from(track.getElementsByTagName('trkseg')).flatMap((segment) => Array.from(segment.getElementsByTagName('trkpt'))),
  );
  if (trackPoints.length > 0 || routes.length === 0) return { kind: 'trk', noun: 'track', points: trackPoints };
  return { kind: 'rte', noun: 'route', points: routes.flatMap((route) => Array.from(route.getElementsByTagName('rtept'))) };
}

/** Degrees as GPX writes them (xsd:decimal); togeojson's parseFloat would read '12abc' as 12. */
const DECIMAL = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/;

function checkPoints({ noun, points }: GpxPath): void {
  if (points.length < 2) {
    throw new CourseRefused(
      'too_few_points',
      `The ${noun} has ${points.length} point${points.length === 1 ? '' : 's'}; a course needs at least 2 (a start and a finish), and enough between them to follow its streets.`,
    );
  }
  points.forEach((point, i) => {
    const where = `Point ${i + 1} of the ${noun}`;
    const lat = point.getAttribute('lat') ?? '';
    const lon = point.getAttribute('lon') ?? '';
    if (!DECIMAL.test(lat) || !DECIMAL.test(lon)) {
      throw new CourseRefused(
        'bad_coordinates',
        `${where} has no readable position (lat="${lat.slice(0, 20)}" lon="${lon.slice(0, 20)}"): each point needs lat and lon in decimal degrees.`,
      );
    }
    if (Math.abs(Number(lat)) > 90) {
      throw new CourseRefused('bad_coordinates', `${where} has latitude ${lat.trim()}, outside -90 to 90: check that lat and lon are not swapped.`);
    }
    if (Math.abs(Number(lon)) > 180) {
      throw new CourseRefused('bad_coordinates', `${where} has longitude ${lon.trim()}, outside -180 to 180: check the file's lon values.`);
    }
  });
}
