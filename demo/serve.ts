/**
 * The demo's server process: the real server (server/serve.ts, what `npm start` runs) built on the
 * demo's compressed clock (server/clock.ts), so a whole marathon runs in minutes and every race time
 * the server says, and the recorder shows from it, is on the clock the runner's phone runs. The clock
 * comes on the command line from ./server.ts, never from the environment, which `npm start` reads:
 *
 *   node --import tsx demo/serve.ts --clock-origin <epoch ms> --clock-rate <n>
 *
 * The clock reads the real time at `origin` and runs `rate` times as fast from then on.
 */
import { compressedClock, type Clock } from '../server/clock.js';
import { loadConfig } from '../server/config/index.js';
import { serve } from '../server/serve.js';

/** The clock the command line names; throws a sentence when it names none or a bad one. */
function clockFromArgs(argv: readonly string[]): Clock {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    const n = i < 0 ? NaN : Number(argv[i + 1]);
    if (!Number.isFinite(n)) throw new Error(`demo/serve.ts needs ${name} <number>`);
    return n;
  };
  return compressedClock({ origin: value('--clock-origin'), rate: value('--clock-rate') });
}

await serve(loadConfig(), { clock: clockFromArgs(process.argv.slice(2)) });
