/**
 * The operator CLI's commands (`npm run admin -- <command>`, entry ./admin.ts). Same configuration
 * as the server (PORT, DATA_DIR, DATABASE_URL, PUBLIC_URL). Results go to stdout as JSON; mistakes
 * to stderr with exit code 2; anything else to stderr with exit code 1. `check`, the preflight
 * (server/ops/preflight), prints a line per check instead, and exits 1 when one failed.
 */
import path from 'node:path';
import { MAX_RUNNER_NAME_LENGTH } from '../../src/shared/limits.js';
import { loadConfig, loadStorageConfig } from '../config/index.js';
import { openRepository } from '../db/index.js';
import type { Repository } from '../db/repository.js';
import { receiptOf } from '../intake/commit.js';
import { linkIdOf, newToken } from '../links.js';
import { cleanRunnerName } from '../intake/sanitize.js';
import { backup, BackupRefused, restore } from '../ops/backup.js';
import { runPreflight } from '../ops/preflight/run.js';
import { verifyStorage } from '../ops/verify-storage.js';
import { openBlobStore } from '../storage/index.js';
import { Findings, optionsOf, Refused, UsageError, type Command } from './options.js';
import { overWarning, RACE_COMMANDS, raceOf } from './race-commands.js';
import { RACE_EDIT_COMMANDS } from './race-edit-commands.js';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  add-race --id <id> --name "Name" --date YYYY-MM-DD --timezone Area/City --start HH:MM
           [--units mi|mi,km] [--course course.gpx] [--image card.jpg]
                                                 add a race to the catalogue (units: mi by default;
                                                 image: the home page card's JPEG, PNG or WebP)
  set-course --race <race-id> --gpx course.gpx   add or replace a race's course
  list-races                                     list the races in the catalogue
  edit-race --id <id> [--date YYYY-MM-DD] [--start HH:MM] [--timezone Area/City]
           [--name "Name"] [--units mi|mi,km]    change a race (a start delayed on race morning):
           [--image FILE|none]                   every server sees it at once, with the deadlines
                                                 of its notes waiting for conversion; --image sets
                                                 the home page's picture (none: the generic one)
  remove-race --id <id>                          remove a race added by mistake (refused once a
                                                 runner entered it or a link was made for it)
  race-history [--id <id>]                       every edit and removal, with the race before
  remake-race-pictures                           make again, once after upgrading, the pictures stored
                                                 as given before this server made its own (issue 40)
  create-link --runner "Name" --race <race-id>   make a recording link for a runner
  list-notes --token <token>                     list the notes sent through a link
  revoke-link --token <token>                    stop a link from working
  backup --to DIR [--objects-bucket NAME]        copy the database (SQLite, or PostgreSQL with pg_dump)
                                                 and the audio (disk or S3) into DIR, new or empty,
                                                 while the server runs; with S3 the audio may go to
                                                 another, empty bucket instead
  restore --from DIR                             bring a backup back into an empty DATA_DIR, database
                                                 and bucket
  verify-storage                                 check that every note's audio is in the store; list
                                                 the audio no note names (exit 1 when some is missing)
  check                                          the preflight, before race weekend: database, clock,
                                                 blob store, free space, ffmpeg, PUBLIC_URL, Apple
                                                 sign-in; one line each, exit code 1 when any failed`;

/** Where a run of the CLI reads its settings and writes its two streams. */
export interface AdminIo {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
}

async function linkFor(repo: Repository, token: string) {
  const link = await repo.links.find(linkIdOf(token));
  if (!link) throw new UsageError('No link has this token. Check that it was copied whole.');
  return link;
}

const COMMANDS: Record<string, Command> = {
  ...RACE_COMMANDS,
  ...RACE_EDIT_COMMANDS,
  async 'create-link'(repo, args, warn, env) {
    const { runner, race } = optionsOf(args, ['runner', 'race']);
    // Stored as the app's entries are (server/intake/sanitize.ts); too long is refused here, not cut.
    const name = cleanRunnerName(runner!);
    if (!name) throw new UsageError('The runner name has no visible characters. Give the name friends know them by.');
    if (Array.from(runner!.trim()).length > MAX_RUNNER_NAME_LENGTH)
      throw new UsageError(`The runner name is too long (${MAX_RUNNER_NAME_LENGTH} characters at most).`);
    const known = await raceOf(repo, race!);
    const token = newToken();
    await repo.links.create({ linkId: linkIdOf(token), runnerName: name, raceId: known.id, createdAt: new Date().toISOString() });
    const over = overWarning(known, "The link works, and its recorder tells friends their notes will wait in the runner's keepsake.");
    if (over) warn(over);
    return { token, url: `${loadConfig(env).publicUrl}/r/${token}` };
  },
  async 'list-notes'(repo, args) {
    const { token } = optionsOf(args, ['token']);
    const link = await linkFor(repo, token!);
    const notes = await repo.notes.ofLink(link.linkId);
    // What the sender's receipt says of each, and where its conversion stands.
    return notes.map((n) => ({
      ...receiptOf(n),
      durationMs: n.durationMs,
      status: n.status,
      ...(n.failureReason ? { failureReason: n.failureReason } : {}),
    }));
  },
  async 'verify-storage'(repo, args, _warn, env) {
    optionsOf(args, []);
    const report = await verifyStorage(repo, openBlobStore(loadStorageConfig(env)));
    if (!report.healthy) {
      const found = [
        report.missingCount > 0 &&
          `${report.missingCount} object(s) that notes name are missing from the store (first: ${report.missing[0]!.key}, of note ${report.missing[0]!.noteId})`,
        report.wrongSizeCount > 0 && `${report.wrongSizeCount} object(s) are not the size their row records (first: ${report.wrongSize[0]!.key})`,
      ].filter(Boolean);
      throw new Findings(`${found.join('; ')}.`, report);
    }
    return report;
  },
  async 'revoke-link'(repo, args) {
    const { token } = optionsOf(args, ['token']);
    const link = await linkFor(repo, token!);
    await repo.links.revoke(link.linkId, new Date().toISOString());
    return { token, revoked: true };
  },
};

/** Commands on DATA_DIR's files themselves: they read only the storage settings and open no repository. */
const FILE_COMMANDS: Record<string, (args: string[], env: NodeJS.ProcessEnv) => Promise<unknown>> = {
  async backup(args, env) {
    const { to, 'objects-bucket': objectsBucket } = optionsOf(args, ['to'], ['objects-bucket']);
    return { backup: path.resolve(to!), ...(await backup(loadStorageConfig(env), path.resolve(to!), { objectsBucket }, env)) };
  },
  async restore(args, env) {
    const { from } = optionsOf(args, ['from']);
    const storage = loadStorageConfig(env);
    const manifest = await restore(storage, path.resolve(from!), env);
    return {
      restoredInto: storage.dataDir,
      ...(storage.databaseUrl && { database: 'DATABASE_URL' }),
      ...(storage.s3 && { bucket: storage.s3.bucket }),
      ...manifest,
    };
  },
};

/** One run of the CLI with these arguments; its exit code. */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    io.err(`admin failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/** A mistake's exit code (2) and words, or undefined for any other error. */
function mistake(err: unknown, io: AdminIo): number | undefined {
  if (err instanceof Refused || err instanceof BackupRefused) io.err(`${err.message}\n`);
  else if (err instanceof UsageError) io.err(`${err.message}\n\n${USAGE}\n`);
  else return undefined;
  return 2;
}

async function dispatch(argv: string[], io: AdminIo): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === 'help') {
    io.err(`${USAGE}\n`);
    return name ? 0 : 2;
  }
  // Lines for a person, not JSON, and its own exit code (1: something failed).
  if (name === 'check') return args.length > 0 ? (io.err(`check takes no options.\n\n${USAGE}\n`), 2) : runPreflight(io.env, io.out);
  const fileCommand = FILE_COMMANDS[name];
  const command = COMMANDS[name];
  if (!fileCommand && !command) {
    io.err(`Unknown command '${name}'.\n\n${USAGE}\n`);
    return 2;
  }
  const repo = command ? await openRepository(loadConfig(io.env)) : undefined;
  try {
    const result = fileCommand ? await fileCommand(args, io.env) : await command!(repo!, args, (line) => io.err(`${line}\n`), io.env);
    io.out(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof Findings) {
      io.out(`${JSON.stringify(err.result)}\n`);
      io.err(`${err.message}\n`);
      return 1;
    }
    const code = mistake(err, io);
    if (code === undefined) throw err;
    return code;
  } finally {
    await repo?.close();
  }
}
