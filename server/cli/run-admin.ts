/**
 * The operator CLI's commands (`npm run admin -- <command>`, entry ./admin.ts). Same configuration
 * as the server (PORT, DATA_DIR, DATABASE_URL, PUBLIC_URL). A result goes to stdout: at a terminal as
 * lines or a table a person reads (./for-people.ts), piped or with --json as one line of JSON, which
 * scripts read. Mistakes go to stderr with exit code 2; anything else to stderr with exit code 1.
 * `check`, the preflight (server/ops/preflight), prints a line per check instead, and exits 1 when one failed.
 */
import path from 'node:path';
import { loadConfig, loadStorageConfig } from '../config/index.js';
import { openRepository } from '../db/index.js';
import { backup, BackupRefused, restore } from '../ops/backup.js';
import { runPreflight } from '../ops/preflight/run.js';
import { verifyStorage } from '../ops/verify-storage.js';
import { openBlobStore } from '../storage/index.js';
import { forPeople } from './for-people.js';
import { LINK_COMMANDS } from './link-commands.js';
import { Findings, optionsOf, Refused, UsageError, type Command } from './options.js';
import { RACE_COMMANDS } from './race-commands.js';
import { RACE_EDIT_COMMANDS } from './race-edit-commands.js';
import { HELP, usageOf } from './usage.js';

/** Where a run of the CLI reads its settings and writes its two streams. */
export interface AdminIo {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
  /** stdout is a terminal: results are shown for a person, unless --json is given. */
  terminal?: boolean;
}

const COMMANDS: Record<string, Command> = {
  ...RACE_COMMANDS,
  ...RACE_EDIT_COMMANDS,
  ...LINK_COMMANDS,
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

/** Every command the CLI runs, for the test that `help` names each. */
export const COMMAND_NAMES = [...Object.keys(COMMANDS), ...Object.keys(FILE_COMMANDS), 'check'];

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
function mistake(err: unknown, command: string, io: AdminIo): number | undefined {
  if (err instanceof Refused || err instanceof BackupRefused) io.err(`${err.message}\n`);
  else if (err instanceof UsageError) io.err(`${err.message}\n\n${usageOf(command) ?? HELP}\n`);
  else return undefined;
  return 2;
}

async function dispatch(argv: string[], io: AdminIo): Promise<number> {
  const [name, ...given] = argv;
  if (!name) {
    io.err(`${HELP}\n`);
    return 2;
  }
  if (name === '--help' || name === 'help') {
    const about = given[0] === undefined ? HELP : usageOf(given[0]);
    if (about) return (io.out(`${about}\n`), 0);
    io.err(`Unknown command '${given[0]}'.\n\n${HELP}\n`);
    return 2;
  }
  // Lines for a person, not JSON, and its own exit code (1: something failed).
  if (name === 'check') return given.length > 0 ? (io.err(`check takes no options.\n\n${usageOf('check')}\n`), 2) : runPreflight(io.env, io.out);
  const fileCommand = FILE_COMMANDS[name];
  const command = COMMANDS[name];
  if (!fileCommand && !command) {
    io.err(`Unknown command '${name}'.\n\n${HELP}\n`);
    return 2;
  }
  const args = given.filter((a) => a !== '--json');
  const show = (result: unknown) => io.out(io.terminal && args.length === given.length ? forPeople(name, result) : `${JSON.stringify(result)}\n`);
  const repo = command ? await openRepository(loadConfig(io.env)) : undefined;
  try {
    show(fileCommand ? await fileCommand(args, io.env) : await command!(repo!, args, (line) => io.err(`${line}\n`), io.env));
    return 0;
  } catch (err) {
    if (err instanceof Findings) {
      show(err.result);
      io.err(`${err.message}\n`);
      return 1;
    }
    const code = mistake(err, name, io);
    if (code === undefined) throw err;
    return code;
  } finally {
    await repo?.close();
  }
}
