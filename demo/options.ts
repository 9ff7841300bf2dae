/** `npm run demo` options: how long the race takes, who sends notes, which network the recorder link is on. */
export interface DemoOptions {
  /** Real minutes the whole marathon takes on this computer. */
  minutes: number;
  /** Simulated friends sending spoken notes to markers ahead. */
  friends: number;
  /** The recorder link behind the bench's venue network (the bad network's venue mode, stand-ins/badNetwork/). */
  venue: boolean;
  /** Keep the data folder at the end. */
  keep: boolean;
  /** The server's port (PORT, default 8080, as `npm start`). */
  port: number;
  /** The watch page's port (0: any free one). */
  watchPort: number;
}

export const USAGE = `npm run demo -- [--minutes N] [--friends N] [--venue] [--keep] [--watch-port N]
  --minutes N     the whole marathon takes N real minutes (default 15; 1 to 240)
  --friends N     N simulated friends send spoken notes to markers ahead (default 0; up to 50)
  --venue         the recorder link goes through a venue's bad network (offline windows, cuts, 502s)
  --keep          keep the data folder at the end (it is removed otherwise)
  --watch-port N  the watch page's port (default: the server's port + 1)
PORT sets the server's port (default 8080).`;

function number(name: string, value: string | undefined, min: number, max: number): number {
  const n = Number(value);
  if (value === undefined || !Number.isFinite(n) || n < min || n > max) throw new Error(`${name} takes a number from ${min} to ${max}`);
  return n;
}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): DemoOptions {
  const port = env.PORT ? number('PORT', env.PORT, 1, 65_535) : 8080;
  const opts: DemoOptions = { minutes: 15, friends: 0, venue: false, keep: false, port, watchPort: port + 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--minutes') opts.minutes = number('--minutes', argv[++i], 1, 240);
    else if (arg === '--friends') opts.friends = Math.round(number('--friends', argv[++i], 0, 50));
    else if (arg === '--watch-port') opts.watchPort = Math.round(number('--watch-port', argv[++i], 0, 65_535));
    else if (arg === '--venue') opts.venue = true;
    else if (arg === '--keep') opts.keep = true;
    else throw new Error(`unknown option ${arg}`);
  }
  return opts;
}
