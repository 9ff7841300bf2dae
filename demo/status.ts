/** What the demo tells the watch page and the terminal: the course drawn, and the race as it stands. */
import type { Position } from 'geojson';
import { markerLabel } from '../contract/markers.js';
import type { FencedMarker } from '../reference-app/fences.js';
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

export function courseBody(course: readonly Position[], markers: readonly FencedMarker[]) {
  const project = projector(course);
  return {
    size: SIZE,
    points: course.filter((_, i) => i % 3 === 0 || i === course.length - 1).map(project),
    markers: markers.map((m) => ({ id: m.id, label: markerLabel(m.id), at: project([m.lon, m.lat]) })),
  };
}

export interface DemoState {
  runner: { name: string; km: number; lastMarker: string | null; at: [number, number]; finished: boolean };
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
  const km = runner.distanceAt(at) / 1000;
  const passed = race.markers.filter((m) => m.distanceMeters <= runner.distanceAt(at)).at(-1);
  const position = runner.fixAt(at);
  return {
    runner: {
      name: 'Alex',
      km: Math.round(km * 10) / 10,
      lastMarker: passed ? markerLabel(passed.id) : null,
      at: projector(course)([position.lon, position.lat]),
      finished: at >= runner.finishMs,
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

/** The race in one line. */
export function statusLine(s: DemoState): string {
  const count = (step: keyof NoteWay) => s.notes.filter((n) => n[step] !== undefined).length;
  const where = s.runner.finished ? 'finished' : `${s.runner.km.toFixed(1)} km${s.runner.lastMarker ? ` (past ${s.runner.lastMarker})` : ''}`;
  const notes =
    s.notes.length === 0
      ? 'no notes yet'
      : `notes: ${s.notes.length} sent, ${count('stored')} stored, ${count('converted')} converted, ${count('onPhone')} on the phone, ${count('played')} played`;
  const venue = s.venue ? ` · venue link ${s.venue.online ? 'up' : 'OFFLINE'}` : '';
  return `Alex ${where} · race clock ${clockOf(s.raceClock, s.timeZone)} · ${notes}${venue}`;
}
