/**
 * The admin CLI's link commands: create-link, list-links, replace-link, revoke-link and list-notes.
 * A link's token is kept only as its hash (server/links.ts), so no command can show a link's address
 * again: list-links shows each link's id, and replace-link gives the runner a new link in its place.
 */
import { MAX_RUNNER_NAME_LENGTH } from '../../contract/limits.js';
import { recorderPath } from '../../contract/paths.js';
import { loadConfig } from '../config/index.js';
import type { LinkView, Repository } from '../db/repository.js';
import { receiptOf } from '../intake/commit.js';
import { cleanRunnerName } from '../intake/sanitize.js';
import { linkIdOf, newToken } from '../links.js';
import { optionsOf, Refused, UsageError, type Command } from './options.js';
import { overWarning, raceOf } from './race-commands.js';

/** The shortest start of a link id replace-link takes: 32 bits, so a mistyped one names no other link by chance. */
const MIN_ID_PREFIX = 8;

/** The link an option names: --token (what the runner was given) or --link (its id from list-links, or the start of it). */
async function namedLink(repo: Repository, args: string[]): Promise<LinkView> {
  const { token, link } = optionsOf(args, [], ['token', 'link']);
  if (token === undefined && link === undefined) throw new UsageError('Missing --token (or --link, the id list-links shows).');
  if (token !== undefined && link !== undefined) throw new UsageError('Give --token or --link, not both.');
  if (token !== undefined) {
    const found = await repo.links.find(linkIdOf(token));
    if (!found) throw new UsageError('No link has this token. Check that it was copied whole.');
    return found;
  }
  const prefix = link!.trim().toLowerCase();
  if (!new RegExp(`^[0-9a-f]{${MIN_ID_PREFIX},64}$`).test(prefix)) {
    throw new UsageError(`--link takes a link id as list-links shows it: ${MIN_ID_PREFIX} to 64 of its characters (0-9, a-f).`);
  }
  const ids = await repo.links.idsStartingWith(prefix);
  if (ids.length === 0) throw new Refused(`No link's id starts with ${prefix}. list-links shows them.`);
  if (ids.length > 1) throw new Refused(`More than one link's id starts with ${prefix}: give more of it.`);
  return (await repo.links.find(ids[0]!))!;
}

/** The runner's name as stored (as the runner API stores it), or the sentence refusing it. */
function runnerNameOf(runner: string): string {
  const name = cleanRunnerName(runner);
  if (!name) throw new UsageError('The runner name has no visible characters. Give the name friends know them by.');
  // Too long is refused here, not cut.
  if (Array.from(runner.trim()).length > MAX_RUNNER_NAME_LENGTH)
    throw new UsageError(`The runner name is too long (${MAX_RUNNER_NAME_LENGTH} characters at most).`);
  return name;
}

/** Case and Unicode form set aside, so `alex` finds Alex. */
const folded = (text: string) => text.normalize('NFC').toLocaleLowerCase();

export const LINK_COMMANDS: Record<string, Command> = {
  async 'create-link'(repo, args, warn, env) {
    const { runner, race } = optionsOf(args, ['runner', 'race']);
    const name = runnerNameOf(runner!);
    const known = await raceOf(repo, race!);
    const token = newToken();
    await repo.links.create({ linkId: linkIdOf(token), runnerName: name, raceId: known.id, createdAt: new Date().toISOString() });
    const over = overWarning(known, "The link works, and its recorder tells friends their notes will wait in the runner's keepsake.");
    if (over) warn(over);
    return { token, url: `${loadConfig(env).publicUrl}${recorderPath(token)}` };
  },

  async 'list-links'(repo, args) {
    const { race, runner } = optionsOf(args, [], ['race', 'runner']);
    const raceId = race === undefined ? undefined : (await raceOf(repo, race)).id;
    const wanted = runner === undefined ? undefined : folded(runner.trim());
    const links = (await repo.links.list(raceId)).filter((l) => wanted === undefined || folded(l.runnerName).includes(wanted));
    return links.map((l) => ({
      linkId: l.linkId,
      runner: l.runnerName,
      race: l.raceId,
      raceName: l.raceName,
      createdAt: l.createdAt,
      revoked: l.revokedAt !== null,
      revokedAt: l.revokedAt,
      notes: l.notes,
      madeBy: l.madeBy,
    }));
  },

  async 'replace-link'(repo, args, warn, env) {
    const old = await namedLink(repo, args);
    if (old.revoked) {
      const links = await repo.links.list(old.race.id);
      const runnerId = links.find((l) => l.linkId === old.linkId)?.runnerId;
      const live = links.find((l) => l.runnerId === runnerId && l.revokedAt === null);
      if (live) {
        throw new Refused(
          `This link was stopped, and ${old.runnerName} has a live link for ${old.race.name} (${live.linkId.slice(0, 12)}): replace that one. Nothing was changed.`,
        );
      }
    }
    const token = newToken();
    if (!(await repo.links.replace(old.linkId, linkIdOf(token), new Date().toISOString())))
      throw new Refused('The link was removed meanwhile; nothing was changed.');
    warn(
      `Replaced ${old.runnerName}'s link for ${old.race.name}: the old one (${old.linkId.slice(0, 12)}) no longer opens. Send the new one to ${old.runnerName}.`,
    );
    const over = overWarning(old.race, "The link works, and its recorder tells friends their notes will wait in the runner's keepsake.");
    if (over) warn(over);
    return { token, url: `${loadConfig(env).publicUrl}${recorderPath(token)}`, runner: old.runnerName, race: old.race.id, replaced: old.linkId };
  },

  async 'list-notes'(repo, args) {
    const link = await namedLink(repo, args);
    const notes = await repo.notes.ofLink(link.linkId);
    // What the sender's receipt says of each, and where its conversion stands.
    return notes.map((n) => ({
      ...receiptOf(n),
      durationMs: n.durationMs,
      status: n.status,
      ...(n.failureReason ? { failureReason: n.failureReason } : {}),
    }));
  },

  async 'revoke-link'(repo, args) {
    const link = await namedLink(repo, args);
    await repo.links.revoke(link.linkId, new Date().toISOString());
    const { token } = optionsOf(args, [], ['token', 'link']);
    return token === undefined ? { linkId: link.linkId, revoked: true } : { token, revoked: true };
  },
};
