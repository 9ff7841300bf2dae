/**
 * The admin CLI's commands that change a race already in the catalogue: edit-race (a
 * start delayed on race morning, a name or units corrected), remove-race (a race added by mistake)
 * race-history (what was changed, when, by whom, and what it was before) and remake-race-pictures
 * (the pictures stored as the operator gave them, by older servers, made again by this server). Each
 * change is said on stderr, the CLI's log, with the race before, and kept in the catalogue's history.
 */
import os from 'node:os';
import { raceWhen, resolveStart } from '../../contract/raceClock.js';
import type { ChangeAuthor, Race, RaceHoldings, RaceRow, Repository } from '../db/repository.js';
import { raceRowOf } from '../db/rows.js';
import { EDIT_OPTIONS, changedFields, editedRace, moveProblem, type EditedRace } from '../races/race-edit.js';
import { editRace } from '../races/note-deadlines.js';
import { courseFor } from '../races/stored-course.js';
import { loadStorageConfig } from '../config/index.js';
import { openBlobStore } from '../storage/index.js';
import { ImageRefused, makeRaceImage, MAX_RACE_IMAGE_INPUT_BYTES, type RaceImageFile } from '../races/race-image.js';
import { BlobTooLargeError, isBlobMissing, type BlobStore } from '../storage/blob-store.js';
import { isMadeRaceImage, raceImageUrl } from '../storage/keys.js';
import { optionsOf, Refused, UsageError, type Command } from './options.js';
import { imageFromFile, imageLine, raceOf, storeImage } from './race-commands.js';

/** Who ran the CLI, for the history: the account and machine (no address, no secret). */
function operator(): string {
  try {
    return `${os.userInfo().username}@${os.hostname()}`;
  } catch {
    // A container's user may have no name in /etc/passwd.
    return `uid ${process.getuid?.() ?? '?'}@${os.hostname()}`;
  }
}

const authorAt = (now: number): ChangeAuthor => ({ at: new Date(now).toISOString(), by: operator() });

/** '07:30 America/Chicago on 2026-10-11 (12:30 UTC)': a start as the operator typed it, and as an instant. */
const startLine = (r: Pick<RaceRow, 'date' | 'start' | 'timezone' | 'startsAt'>) => `${r.start} ${r.timezone} on ${r.date} (${r.startsAt.slice(11, 16)} UTC)`;

/** '45 minutes later', '1 day 2 hours earlier'. */
function shift(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const parts = [
    [Math.floor(minutes / 1440), 'day'],
    [Math.floor((minutes % 1440) / 60), 'hour'],
    [minutes % 60, 'minute'],
  ] as const;
  const said = parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`)
    .join(' ');
  return `${said} ${ms > 0 ? 'later' : 'earlier'}`;
}

/** One line for the log: what changed, from what to what. */
function changeLine(before: RaceRow, after: RaceRow, notesRescheduled: number): string {
  const said: string[] = [];
  if (after.startsAt !== before.startsAt) {
    const moved = Date.parse(after.startsAt) - Date.parse(before.startsAt);
    said.push(`start moved from ${startLine(before)} to ${startLine(after)}, ${shift(moved)}`);
  } else if (after.date !== before.date || after.start !== before.start || after.timezone !== before.timezone) {
    said.push(`schedule rewritten from ${startLine(before)} to ${startLine(after)}, the same instant`);
  }
  if (after.name !== before.name) said.push(`name changed from "${before.name}" to "${after.name}"`);
  if (after.units.join(',') !== before.units.join(',')) said.push(`units changed from ${before.units.join(',')} to ${after.units.join(',')}`);
  const notes = after.startsAt === before.startsAt ? '' : `; ${notesRescheduled} note${notesRescheduled === 1 ? '' : 's'} waiting for conversion rescheduled`;
  return `Changed the race ${after.id}: ${said.join('; ')}${notes}. Every server sees it on its next request.`;
}

/** '1 runner has entered it from the app, and there are 3 links made for it (1 revoked)'. */
function holdersOf({ entries, links, revokedLinks }: RaceHoldings): string {
  const made = `${links === 1 ? 'there is 1 link' : `there are ${links} links`} made for it${revokedLinks > 0 ? ` (${revokedLinks} revoked)` : ''}`;
  return entries > 0 ? `${entries === 1 ? '1 runner has' : `${entries} runners have`} entered it from the app, and ${made}` : made;
}

/** The race's course placed again for new units, when it has one; what the edit expects of it. */
async function coursePlacedFor(repo: Repository, race: Race, edited: EditedRace) {
  if (!race.hasCourse || edited.units.join(',') === race.units.join(',')) return undefined;
  const course = await repo.races.course(race.id);
  if (!course) throw new Refused(`The course of '${race.id}' changed meanwhile; nothing was changed. Run edit-race again.`);
  return { placed: courseFor({ type: 'LineString', coordinates: course.line }, edited.units), fromEtag: course.etag };
}

/** A stored blob read whole, refused past `cap` bytes. */
async function storedBytes(blobs: BlobStore, key: string, cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of await blobs.get(key)) {
    length += (chunk as Buffer).length;
    if (length > cap) throw new BlobTooLargeError(cap);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * One race's picture stored as the operator gave it, made again as add-race makes one now; one that
 * does not decode, or is past the limits, is taken off (the card shows the generic picture).
 */
async function remadePicture(repo: Repository, blobs: BlobStore, raceId: string, key: string, warn: (line: string) => void, now: number) {
  let made: RaceImageFile;
  try {
    made = await makeRaceImage(await storedBytes(blobs, key, MAX_RACE_IMAGE_INPUT_BYTES));
  } catch (err) {
    if (!(err instanceof ImageRefused) && !(err instanceof BlobTooLargeError) && !isBlobMissing(err)) throw err;
    const why =
      err instanceof ImageRefused
        ? err.message
        : err instanceof BlobTooLargeError
          ? `is larger than ${MAX_RACE_IMAGE_INPUT_BYTES / 1024 / 1024} MiB.`
          : 'is not in the store.';
    if ((await repo.races.image(raceId))?.key !== key) return { race: raceId, outcome: 'changed meanwhile' };
    await repo.races.setImage(raceId, null, authorAt(now));
    warn(`Took the picture off the race ${raceId}: ${raceImageUrl(key)} ${why} Give it another with edit-race --id ${raceId} --image FILE.`);
    return { race: raceId, outcome: 'removed', reason: why };
  }
  const image = await storeImage(blobs, raceId, made);
  // An edit-race since this began wins: its picture is already a made one.
  if ((await repo.races.image(raceId))?.key !== key) return { race: raceId, outcome: 'changed meanwhile' };
  await repo.races.setImage(raceId, image, authorAt(now));
  warn(
    `Changed the race ${raceId}: picture ${raceImageUrl(key)} -> ${raceImageUrl(image.key)} (made again by this server, ${made.inputBytes} -> ${made.bytes.length} bytes).`,
  );
  return { race: raceId, outcome: 'remade', image: imageLine(image, made) };
}

export const RACE_EDIT_COMMANDS: Record<string, Command> = {
  async 'edit-race'(repo, args, warn, env) {
    const now = Date.now();
    const options = optionsOf(args, ['id'], [...EDIT_OPTIONS, 'image']);
    if ([...EDIT_OPTIONS, 'image' as const].every((o) => options[o] === undefined)) {
      throw new UsageError(`Give at least one of ${[...EDIT_OPTIONS, 'image'].map((o) => `--${o}`).join(', ')}.`);
    }
    const race = await raceOf(repo, options.id!);
    const edited = editedRace(race, options);
    if (typeof edited === 'string') throw new Refused(`${edited} Nothing was changed.`);
    // The picture is read and checked with the rest, before anything is written; 'none' takes it off.
    const picture = options.image === undefined || options.image === 'none' ? undefined : await imageFromFile(options.image);
    // Stored before any row changes, so a store that fails leaves the race as it was (a file no row names is harmless).
    const image = picture ? await storeImage(openBlobStore(loadStorageConfig(env)), race.id, picture) : null;
    const pictured = async () => {
      if (options.image === undefined) return {};
      const set = await repo.races.setImage(race.id, image, authorAt(now));
      if (!set) throw new Refused(`The race '${race.id}' was removed meanwhile; nothing was changed.`);
      warn(
        `Changed the race ${race.id}: picture ${set.before ? raceImageUrl(set.before.key) : 'none'} -> ${image ? raceImageUrl(image.key) : 'none (the generic one)'}.`,
      );
      return {
        image: image && { url: raceImageUrl(image.key), type: image.type },
        imageBefore: set.before && { url: raceImageUrl(set.before.key), type: set.before.type },
      };
    };
    if (changedFields(race, edited).length === 0) {
      const pictures = await pictured();
      if (options.image === undefined) warn(`Nothing to change: the race ${race.id} already has these.`);
      return { ...raceRowOf(race), when: raceWhen(race.startsAt, now), changed: options.image === undefined ? [] : ['image'], ...pictures };
    }
    const problem = moveProblem(race, edited, now, await repo.races.holdings(race.id));
    if (problem) throw new Refused(problem);
    const course = await coursePlacedFor(repo, race, edited);
    const result = await editRace(repo, race, { ...edited, ...(course && { course }) }, authorAt(now));
    if (result.outcome === 'changed')
      throw new Refused(`The race '${race.id}' was changed or removed meanwhile; nothing was changed. Look at list-races, then run edit-race again.`);
    if (result.outcome === 'km_notes') {
      throw new Refused(
        `${result.notes} note${result.notes === 1 ? ' is' : 's are'} pinned to kilometre markers of the ${race.name}: its units stay mi,km. Nothing was changed.`,
      );
    }
    const after = result.race;
    warn(changeLine(race, after, result.notesRescheduled));
    if (resolveStart(after.date, after.start, after.timezone).fit === 'overlap') {
      warn(
        `Note: ${after.start} happens twice on ${after.date} in ${after.timezone} (the clocks go back that night); the race starts at the first, ${after.startsAt} in UTC.`,
      );
    }
    const when = raceWhen(after.startsAt, now);
    if (when === 'live' && after.startsAt !== race.startsAt)
      warn(`The ${after.name} is live now: it started ${Math.round((now - Date.parse(after.startsAt)) / 60_000)} minutes ago.`);
    const pictures = await pictured();
    return {
      ...raceRowOf(after),
      when,
      hasCourse: after.hasCourse,
      changed: [...changedFields(race, edited), ...(options.image === undefined ? [] : ['image'])],
      before: raceRowOf(race),
      notesRescheduled: result.notesRescheduled,
      ...pictures,
    };
  },

  async 'remove-race'(repo, args, warn) {
    const { id } = optionsOf(args, ['id']);
    const race = await raceOf(repo, id!);
    const result = await repo.races.remove(race.id, authorAt(Date.now()));
    if (result.outcome === 'unknown') throw new Refused(`The race '${race.id}' was removed meanwhile; nothing was changed.`);
    if (result.outcome === 'held') {
      throw new Refused(
        `The ${race.name} (${race.id}) cannot be removed: ${holdersOf(result.holdings)}. A race with runners or links stays, as their notes do; edit-race corrects it. Nothing was changed.`,
      );
    }
    warn(`Removed the race ${race.id}: "${race.name}", ${startLine(race)}, units ${race.units.join(',')}${race.hasCourse ? ', with its course' : ''}.`);
    return { removed: race.id, before: raceRowOf(result.race) };
  },

  async 'remake-race-pictures'(repo, args, warn, env) {
    optionsOf(args, []);
    const now = Date.now();
    const blobs = openBlobStore(loadStorageConfig(env));
    const results = [];
    for (const race of await repo.races.list()) {
      const image = await repo.races.image(race.id);
      if (image && !isMadeRaceImage(image.key)) results.push(await remadePicture(repo, blobs, race.id, image.key, warn, now));
    }
    if (results.length === 0) warn('Every race picture was made by this server already: nothing to change.');
    return results;
  },

  async 'race-history'(repo, args) {
    const { id } = optionsOf(args, [], ['id']);
    return repo.races.history(id);
  },
};
