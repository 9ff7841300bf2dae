import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_GPX_BYTES, MAX_GPX_TAGS, readGpx } from '../../../server/races/gpx.js';
import { CourseRefused, type CourseProblem } from '../../../server/races/refused.js';
import { gpxText } from '../../../stand-ins/courses.js';

const A: [number, number][] = [
  [13.4, 52.5],
  [13.401, 52.5],
  [13.402, 52.501],
];
const B: [number, number][] = [
  [13.403, 52.502],
  [13.404, 52.503],
];
const C: [number, number][] = [
  [13.405, 52.504],
  [13.406, 52.505],
  [13.407, 52.505],
];

function refusal(file: string | Uint8Array): { problem: CourseProblem; message: string } {
  try {
    readGpx(file);
  } catch (err) {
    if (err instanceof CourseRefused) return { problem: err.problem, message: err.message };
    throw err;
  }
  throw new Error('The GPX was read, not refused.');
}

const EXPORT_AGAIN = 'Export the course again as GPX 1.1 from your course planner or watch app.';
const SMALLER = 'Export it as a course or route rather than a recorded activity, or without timestamps, heart rate and other extensions.';

describe('reading a GPX course', () => {
  it('should join every segment of every track in order, and drop elevation', () => {
    const line = readGpx(gpxText({ tracks: [[A.map(([lon, lat]) => [lon, lat, 34.5]), B], [C]] }));
    expect(line).toEqual({ type: 'LineString', coordinates: [...A, ...B, ...C] });
  });

  it('should read the routes when the file has no track, and the tracks when it has both', () => {
    expect(readGpx(gpxText({ routes: [A, B] })).coordinates).toEqual([...A, ...B]);
    expect(readGpx(gpxText({ routes: [A], tracks: [[C]] })).coordinates).toEqual(C);
  });

  it('should leave out a point that repeats the one before it, as where one segment ends and the next begins', () => {
    expect(readGpx(gpxText({ tracks: [[A, [A[2]!, ...B]]] })).coordinates).toEqual([...A, ...B]);
  });

  it('should read bytes in UTF-8 with or without a byte order mark, and in UTF-16', () => {
    const text = gpxText({ tracks: [[A]] });
    expect(readGpx(Buffer.from(text)).coordinates).toEqual(A);
    expect(readGpx(Buffer.from(`\uFEFF${text}`)).coordinates).toEqual(A);
    expect(readGpx(Buffer.from(`\uFEFF${text}`, 'utf16le')).coordinates).toEqual(A);
  });

  it('should read a watch recording of a whole marathon, 20,000 points with elevation and time', () => {
    const points = Array.from(
      { length: 20_000 },
      (_, i) => `<trkpt lat="${(41.8 + i * 2e-5).toFixed(6)}" lon="-87.63"><ele>181.2</ele><time>2026-10-11T12:30:00Z</time></trkpt>`,
    );
    const file = `<?xml version="1.0"?><gpx version="1.1"><trk><trkseg>\n${points.join('\n')}\n</trkseg></trk></gpx>`;
    expect(readGpx(file).coordinates).toHaveLength(20_000);
  });
});

describe('refusing a GPX course, with a sentence that says what to fix', () => {
  const onePoint = '<gpx><trk><trkseg><trkpt lat="52.5" lon="13.4"/></trkseg></trk></gpx>';
  const twoPoints = (lat: string, lon: string) => `<gpx><trk><trkseg><trkpt lat="52.5" lon="13.4"/><trkpt lat="${lat}" lon="${lon}"/></trkseg></trk></gpx>`;

  it.each<[string, string | Uint8Array, CourseProblem, string]>([
    ['a file over 5 MiB', `<gpx>${' '.repeat(MAX_GPX_BYTES)}</gpx>`, 'too_large', `The file is 5.1 MiB; a course can be at most 5 MiB. ${SMALLER}`],
    ['bytes over 5 MiB', new Uint8Array(MAX_GPX_BYTES + 1), 'too_large', `The file is 5.1 MiB; a course can be at most 5 MiB. ${SMALLER}`],
    [
      'too many tags',
      `<gpx>${'<a/>'.repeat(MAX_GPX_TAGS)}</gpx>`,
      'too_many_tags',
      `The file has more than 300,000 tags; a course can have at most that many. ${SMALLER}`,
    ],
    [
      'a DOCTYPE',
      `<?xml version="1.0"?><!DOCTYPE gpx>${twoPoints('52.6', '13.4')}`,
      'doctype',
      `The file declares a DOCTYPE or entities, which a GPX file never needs and we do not read. ${EXPORT_AGAIN}`,
    ],
    [
      'a cut-off file',
      '<gpx><trk><trkseg><trkpt lat="52.5" lon="13.4"/>',
      'not_xml',
      `The file is not well-formed XML (line 1: unclosed xml tag(s): gpx, trk, trkseg). Check that it is the whole GPX file. ${EXPORT_AGAIN}`,
    ],
    [
      'plain text',
      'lat,lon\n52.5,13.4\n',
      'not_xml',
      `The file is not well-formed XML (missing root element). Check that it is the whole GPX file. ${EXPORT_AGAIN}`,
    ],
    ['an empty file', '', 'not_xml', `The file is not well-formed XML (missing root element). Check that it is the whole GPX file. ${EXPORT_AGAIN}`],
    [
      'an HTML entity',
      '<gpx><trk><name>Caf&eacute;</name></trk></gpx>',
      'not_xml',
      `The file is not well-formed XML (line 1: entity not found:&eacute;). Check that it is the whole GPX file. ${EXPORT_AGAIN}`,
    ],
    [
      'KML',
      '<kml xmlns="http://www.opengis.net/kml/2.2"><Document/></kml>',
      'not_gpx',
      `This file is XML but not GPX: its root element is <kml>, where a GPX file has <gpx>. ${EXPORT_AGAIN}`,
    ],
    [
      'waypoints only',
      gpxText({ waypoints: A }),
      'no_track',
      'The GPX file has no track (<trk>) and no route (<rte>); waypoints alone are not a course. Export the course itself, as a track.',
    ],
    [
      'a track of one point',
      onePoint,
      'too_few_points',
      'The track has 1 point; a course needs at least 2 (a start and a finish), and enough between them to follow its streets.',
    ],
    [
      'an empty track',
      '<gpx><trk><name>x</name></trk></gpx>',
      'too_few_points',
      'The track has 0 points; a course needs at least 2 (a start and a finish), and enough between them to follow its streets.',
    ],
    [
      'every point at one place',
      twoPoints('52.5', '13.4'),
      'too_few_points',
      'Every point of the track is at the same place: a course needs a start and a finish apart, and the points between that follow its streets.',
    ],
    [
      'a latitude past a pole',
      twoPoints('91.5', '13.4'),
      'bad_coordinates',
      'Point 2 of the track has latitude 91.5, outside -90 to 90: check that lat and lon are not swapped.',
    ],
    [
      'a longitude past 180',
      twoPoints('52.5', '-181'),
      'bad_coordinates',
      "Point 2 of the track has longitude -181, outside -180 to 180: check the file's lon values.",
    ],
    [
      'a latitude that is not a number',
      twoPoints('52.5abc', '13.4'),
      'bad_coordinates',
      'Point 2 of the track has no readable position (lat="52.5abc" lon="13.4"): each point needs lat and lon in decimal degrees.',
    ],
    [
      'a missing longitude',
      '<gpx><rte><rtept lat="52.5" lon="13.4"/><rtept lat="52.6"/></rte></gpx>',
      'bad_coordinates',
      'Point 2 of the route has no readable position (lat="52.6" lon=""): each point needs lat and lon in decimal degrees.',
    ],
  ])('should refuse %s', (_, file, problem, message) => {
    expect(refusal(file)).toEqual({ problem, message });
  });
});

describe('refusing XML that tries entity expansion or external entities', () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, '../../..');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'milenotes-gpx-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const track = '<trk><name>&lol9;</name><trkseg><trkpt lat="52.5" lon="13.4"/><trkpt lat="52.6" lon="13.4"/></trkseg></trk>';
  // Ten to the ninth 'lol's, 3 GB, if an entity were ever expanded.
  const billionLaughs = `<?xml version="1.0"?>\n<!DOCTYPE gpx [\n<!ENTITY lol "lol">\n${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('\n')}\n]>\n<gpx version="1.1">${track}</gpx>`;

  /** readGpx in a process of its own: 64 MB of heap and 20 s at most. */
  function readInChild(file: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--max-old-space-size=64', '--import', 'tsx', path.join(here, 'read-gpx-child.ts')], {
        cwd: root,
        timeout: 20_000,
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk));
      child.on('close', (code, signal) => resolve({ code, signal, out, err }));
      child.stdin.end(file);
    });
  }

  it('should refuse billion laughs at once, in a process of 64 MB that it neither hangs nor fills', async () => {
    const result = await readInChild(billionLaughs);
    expect(result.signal, result.err).toBeNull();
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(result.out)).toEqual({
      problem: 'doctype',
      message: `The file declares a DOCTYPE or entities, which a GPX file never needs and we do not read. ${EXPORT_AGAIN}`,
    });
  });

  it('should refuse an external entity without reading the file it names', () => {
    const secret = randomBytes(16).toString('hex');
    const file = path.join(dir, 'secret.txt');
    writeFileSync(file, secret);
    for (const declaration of [
      `<!ENTITY xxe SYSTEM "file://${file}">`,
      `<!ENTITY xxe PUBLIC "-//x//EN" "${file}">`,
      `<!ENTITY % xxe SYSTEM "file://${file}"> %xxe;`,
    ]) {
      const gpx = `<?xml version="1.0"?><!DOCTYPE gpx [${declaration}]><gpx><trk><name>&xxe;</name><trkseg><trkpt lat="52.5" lon="13.4"/><trkpt lat="52.6" lon="13.4"/></trkseg></trk></gpx>`;
      const { problem, message } = refusal(gpx);
      expect(problem).toBe('doctype');
      expect(message).not.toContain(secret);
    }
    // Spelled as no XML parser would take it, still refused before any parsing.
    expect(refusal(`<!doctype gpx [<!ENTITY xxe SYSTEM "file://${file}">]><gpx/>`).problem).toBe('doctype');
  });

  it('should rest on a parser that expands no entity a DTD declares and reads no external one (if this fails, xmldom changed)', () => {
    const secret = randomBytes(16).toString('hex');
    const file = path.join(dir, 'parser-secret.txt');
    writeFileSync(file, secret);
    const errors: string[] = [];
    const parse = (text: string) => new DOMParser({ onError: (level, message) => void errors.push(`${level}: ${message}`) }).parseFromString(text, 'text/xml');
    expect(parse(billionLaughs).documentElement!.textContent).not.toContain('lollol');
    expect(parse(`<!DOCTYPE gpx [<!ENTITY xxe SYSTEM "file://${file}">]><gpx><name>&xxe;</name></gpx>`).documentElement!.textContent).toBe('&xxe;');
    expect(errors).toEqual(['error: entity not found:&lol9;', 'error: entity not found:&xxe;']);
  });
});
