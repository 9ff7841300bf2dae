/** What the demo tells the watch page and the terminal: the course drawn, and the race as it stands. */
import type { Position } from 'geojson';
import { markerLabel } from '../contract/markers.js';
import type { FencedMarker } from '../reference-app/fences.js';
import type { DistanceUnit } from '../contract/races.js';
import { courseUnit, distanceText, lastMarkerPassed } from './distance.js';
import { raceElapsed, type DemoRace } from './race.js';
import type { NoteTracker, NoteWay } from './tracker.js';

const SIZE = 1000;
const PAD = 40;

/** Projects [lon, lat] into the SVG's square (north up, the course's own proportions). */
export function projector(course: readonly Position[]): (p: Position) => [number, number] {
  const lat0 = course[0]![1]!;
  const cos = Math.cos((lat0 * Math.PI) / 180);
  const xs = course.map((p) => p[0]! * cos);
  const ys = course.map((p) => p[1]!);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const scale = (SIZE - 2 * PAD) / Math.max(maxX - minX, maxY - minY);
  return (p) => [Math.round(PAD + (p[0]! * cos - minX) * scale), Math.round(SIZE - PAD - (p[1]! - minY) * scale)];
}

export function courseBody(course: readonly Position[], markers: readonly FencedMarker[], lengthMeters: number, unit: DistanceUnit) {
  const project = projector(course);
  return {
    size: SIZE,
    unit,
    lengthMeters: Math.round(lengthMeters),
    points: course.filter((_, i) => i % 3 === 0 || i === course.length - 1).map(project),
    markers: markers.map((m) => ({ id: m.id, label: markerLabel(m.id), meters: m.distanceMeters, at: project([m.lon, m.lat]) })),
  };
}

export interface DemoState {
  runner: {
    name: string;
    /** How far the runner is, in the unit the course is marked in ('1.7 mi'). */
    distance: string;
    /** Metres along the course (the page places the runner on the drawing by them, in no unit a person reads). */
    meters: number;
    /** The last marker passed in that unit ('Mile 1'), or null before the first. */
    lastMarker: string | null;
    at: [number, number];
    /** Once across the finish line: when (ISO, on the demo's clock) and the runner's time ('4:04:44'); null until then. */
    finished: { at: string; time: string } | null;
  };
  /** The demo's clock now (ISO), the one the server, the phone and the recorder read, and the race's zone to write it in. */
  raceClock: string;
  timeZone: string;
  /** How many times as fast as the real clock the demo's runs. */
  compression: number;
  realSeconds: { elapsed: number; total: number };
  venue: { online: boolean; requests: number } | null;
  notes: NoteWay[];
  done: boolean;
}

export function demoState(
  race: DemoRace,
  course: readonly Position[],
  tracker: NoteTracker,
  venue: DemoState['venue'],
  done: boolean,
  timeZone: string,
): DemoState {
  const { runner, clock } = race;
  const at = raceElapsed(race);
  const meters = runner.distanceAt(at);
  const unit = courseUnit(race.units);
  const position = runner.fixAt(at);
  return {
    runner: {
      name: 'Alex',
      distance: distanceText(meters, unit),
      meters: Math.round(meters),
      lastMarker: lastMarkerPassed(meters, race.markers, unit),
      at: projector(course)([position.lon, position.lat]),
      finished: at >= runner.finishMs ? { at: new Date(race.startsAt + runner.finishMs).toISOString(), time: raceTime(runner.finishMs) } : null,
    },
    raceClock: new Date(clock.now()).toISOString(),
    timeZone,
    compression: Math.round(clock.rate * 10) / 10,
    realSeconds: { elapsed: Math.round(at / clock.rate / 1000), total: Math.round(race.realMs / 1000) },
    venue,
    notes: tracker.snapshot(),
    done,
  };
}

/** A time of day on the demo's clock, in the race's zone (as the recorder writes it). */
export const clockOf = (iso: string | number, timeZone: string) => new Date(iso).toLocaleTimeString('en-US', { timeZone, hour: 'numeric', minute: '2-digit' });

/** A race time as a runner's watch shows it: '4:04:44'. */
export function raceTime(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(seconds / 3600)}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

/** The race in one line, as it stands: where the runner is until the finish, then only the notes (the finish is told once, by finishLine). */
export function statusLine(s: DemoState): string {
  const count = (step: keyof NoteWay) => s.notes.filter((n) => n[step] !== undefined).length;
  const where = s.runner.finished ? 'After the finish' : `Alex ${s.runner.distance}${s.runner.lastMarker ? ` (past ${s.runner.lastMarker})` : ''}`;
  const notes =
    s.notes.length === 0
      ? 'no notes yet'
      : `notes: ${s.notes.length} sent, ${count('stored')} stored, ${count('converted')} converted, ${count('onPhone')} on the phone, ${count('played')} played`;
  const venue = s.venue ? ` · venue link ${s.venue.online ? 'up' : 'OFFLINE'}` : '';
  return `${where} · race clock ${clockOf(s.raceClock, s.timeZone)} · ${notes}${venue}`;
}

/** The finish, said once, when the runner crosses the line. */
export const finishLine = (s: DemoState, finished: { at: string; time: string }): string =>
  `Alex finished at ${clockOf(finished.at, s.timeZone)} on the demo's clock, in ${finished.time}.`;

/** The end of the demo: which notes played, and where. */
export function summaryLine(notes: readonly NoteWay[]): string {
  const played = notes.filter((n) => n.played);
  const where = played.length ? `: ${played.map((n) => `${n.from || 'a friend'} at ${n.heardAt}`).join(', ')}` : '';
  return `The demo is over. ${played.length} of ${notes.length} notes played${where}.`;
}
