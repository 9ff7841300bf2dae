/** The admin CLI's race catalogue commands: add-race, set-course, list-races, and what create-link says of a race. */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { canonicalTimeZone, raceWhen, resolveStart } from '../../contract/raceClock.js';
import type { DistanceUnit } from '../../contract/races.js';
import { loadStorageConfig } from '../config/index.js';
import type { Race, RaceImage, RaceRow, Repository, StoredCourse } from '../db/repository.js';
import { readGpxFile } from '../races/gpx-file.js';
import { ImageRefused, MAX_RACE_IMAGE_BYTES, readRaceImage, type RaceImageFile } from '../races/race-image.js';
import { newRaceProblem, raceNameProblem, unitsOf } from '../races/new-race.js';
import { CourseRefused } from '../races/refused.js';
import { storedCourse } from '../races/stored-course.js';
import type { BlobStore } from '../storage/blob-store.js';
import { openBlobStore } from '../storage/index.js';
import { raceImageKey, raceImageUrl } from '../storage/keys.js';
import { optionsOf, Refused, type Command } from './options.js';

/** A race as the CLI prints it: the catalogue's fields, where it stands now, and whether it has a course. */
const raceLine = (race: Race) => ({
  id: race.id,
  name: race.name,
  date: race.date,
  timezone: race.timezone,
  start: race.start,
  startsAt: race.startsAt,
  when: raceWhen(race.startsAt),
  units: race.units,
  hasCourse: race.hasCourse,
});

const courseLine = (course: StoredCourse) => ({
  lengthMeters: Math.round(course.lengthMeters),
  points: course.line.length,
  appPoints: (JSON.parse(course.app.json) as { coordinates: unknown[] }).coordinates.length,
  etag: course.app.etag,
});

/** The course in a GPX file for a race in these units; a file that is no marathon's course is refused with its sentence. */
async function courseFromFile(file: string, units: readonly DistanceUnit[]): Promise<StoredCourse> {
  try {
    return storedCourse(await readGpxFile(file), units);
  } catch (err) {
    if (err instanceof CourseRefused) throw new Refused(`${file}: ${err.message}`);
    throw err;
  }
}

/** The picture in a file, checked; one that is no picture for a card is refused with its sentence. */
export async function imageFromFile(file: string): Promise<RaceImageFile> {
  try {
    return await readRaceImage(file);
  } catch (err) {
    if (err instanceof ImageRefused) throw new Refused(`${file} ${err.message}`);
    throw err;
  }
}

/** Stores a race's picture, as this server made it, in the blob store (S3 or DATA_DIR's), where every server reads it. */
export async function storeImage(blobs: BlobStore, raceId: string, file: RaceImageFile): Promise<RaceImage> {
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  const key = raceImageKey(raceId, sha256);
  await blobs.put(key, Readable.from([file.bytes]), { maxBytes: MAX_RACE_IMAGE_BYTES, contentType: file.type });
  return { key, type: file.type };
}

/** A stored picture as the CLI prints it: its address and type, its size, and what the operator's file weighed. */
export const imageLine = (image: RaceImage, made: RaceImageFile) => ({
  url: raceImageUrl(image.key),
  type: image.type,
  width: made.width,
  height: made.height,
  bytes: made.bytes.length,
  givenBytes: made.inputBytes,
});

/** The race, or a refusal naming the ids there are. */
export async function raceOf(repo: Repository, id: string): Promise<Race> {
  const race = await repo.races.get(id);
  if (race) return race;
  const ids = (await repo.races.list()).map((r) => r.id);
  throw new Refused(`Unknown race '${id.slice(0, 64)}'. Race ids: ${ids.join(', ')}. add-race adds one; list-races shows them all.`);
}

/** 'Warning: the Chicago Marathon is over (...).' and `then`, when the race is over; undefined when it is not. */
export const overWarning = (race: RaceRow, then: string): string | undefined =>
  raceWhen(race.startsAt) === 'past' ? `Warning: the ${race.name} is over (it started ${race.date} at ${race.start}, ${race.timezone}). ${then}` : undefined;

export const RACE_COMMANDS: Record<string, Command> = {
  async 'add-race'(repo, args, warn, env) {
    const options = optionsOf(args, ['id', 'name', 'date', 'timezone', 'start'], ['units', 'course', 'image']);
    const { id, name, date, timezone, start } = options as Record<'id' | 'name' | 'date' | 'timezone' | 'start', string>;
    const problem = newRaceProblem({ id, date, start, timeZone: timezone }) ?? raceNameProblem(name);
    if (problem) throw new Refused(problem);
    const units = unitsOf(options.units ?? 'mi');
    if (typeof units === 'string') throw new Refused(units);
    const zone = canonicalTimeZone(timezone);
    // Everything is checked, the course read and measured, before the one write.
    const course = options.course === undefined ? undefined : await courseFromFile(options.course, units);
    const picture = options.image === undefined ? undefined : await imageFromFile(options.image);
    const taken = async () => {
      const race = await repo.races.get(id);
      return new Refused(
        `A race with the id '${id}' already exists${race ? ` (${race.name}, ${race.date})` : ''}. Choose another id, e.g. ${id}-2; set-course replaces the course of an existing race.`,
      );
    };
    // The picture goes to the store before the row names it; a taken id stores nothing.
    if (picture && (await repo.races.get(id))) throw await taken();
    const blobs = picture ? openBlobStore(loadStorageConfig(env)) : undefined;
    const image = picture && (await storeImage(blobs!, id, picture));
    if (
      !(await repo.races.add({
        id,
        name: name.trim().normalize('NFC'),
        date,
        start,
        timezone: zone,
        units,
        ...(course && { course }),
        ...(image && { image }),
      }))
    ) {
      // Taken meanwhile: the file goes, unless it is the other race's very own (the same picture, the same id).
      if (image && (await repo.races.image(id))?.key !== image.key) await blobs!.delete(image.key);
      throw await taken();
    }
    const race = (await repo.races.get(id))!;
    if (resolveStart(date, start, zone).fit === 'overlap')
      warn(`Note: ${start} happens twice on ${date} in ${zone} (the clocks go back that night); the race starts at the first, ${race.startsAt} in UTC.`);
    const over = overWarning(race, 'It was added all the same; check the year if you meant an upcoming race.');
    if (over) warn(over);
    return { ...raceLine(race), ...(course && { course: courseLine(course) }), ...(picture && image && { image: imageLine(image, picture) }) };
  },

  async 'set-course'(repo, args) {
    const { race: id, gpx } = optionsOf(args, ['race', 'gpx']);
    const race = await raceOf(repo, id!);
    const course = await courseFromFile(gpx!, race.units);
    if (!(await repo.races.setCourse(race.id, course))) throw new Refused(`The race '${race.id}' was removed meanwhile; nothing was changed.`);
    return { race: race.id, ...courseLine(course) };
  },

  async 'list-races'(repo, args) {
    optionsOf(args, []);
    return (await repo.races.list()).map(raceLine);
  },
};
