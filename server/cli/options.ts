/** The admin CLI's arguments: `--name value` options, and the two kinds of mistake it reports. */
import { parseArgs } from 'node:util';
import type { Repository } from '../db/repository.js';

/** A command on the repository: its result is printed as JSON; `warn` writes a line to stderr. */
export type Command = (repo: Repository, args: string[], warn: (line: string) => void, env: NodeJS.ProcessEnv) => Promise<unknown>;

/** A command used wrongly: its sentence, then the usage. */
export class UsageError extends Error {}

/** A command used rightly but refused (a bad date, a file that is no course): its sentence alone. */
export class Refused extends Error {}

/** A check that ran and found something wrong: its result is printed all the same, its sentence on stderr, exit code 1. */
export class Findings extends Error {
  constructor(
    message: string,
    readonly result: unknown,
  ) {
    super(message);
  }
}

/**
 * `--name value` as `--name=value` for every option of the command (an option followed by another
 * one, or by nothing, is missing): a token may start with '-' (base64url, one in 64), and
 * parseArgs alone refuses `--token -Xy...` as ambiguous.
 */
function withValuesJoined(args: string[], names: string[]): string[] {
  const isOption = (word: string) => names.some((n) => word === `--${n}` || word.startsWith(`--${n}=`));
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const next = args[i + 1];
    if (names.some((n) => word === `--${n}`)) {
      if (next === undefined || isOption(next)) throw new UsageError(`Missing ${word}.`);
      joined.push(`${word}=${next}`);
      i++;
    } else joined.push(word);
  }
  return joined;
}

/** The values of the command's options: each of `required` present and not blank; `optional` ones when given. */
export function optionsOf(args: string[], required: string[], optional: string[] = []): Record<string, string> {
  const names = [...required, ...optional];
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: withValuesJoined(args, names),
      options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  for (const name of names) {
    const value = values[name];
    if (value === undefined && optional.includes(name)) continue;
    if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`Missing --${name}.`);
  }
  return values as Record<string, string>;
}
