/**
 * Race morning under load, on one server process: the figures a runner and a friend
 * feel (a note upload, the held answer that brings the note converted, a sign-in) and the server's
 * memory, first with nothing else going on, then while a crowd runs at race morning's real rates:
 * apps each holding a sync request and posting a batch of positions every 30 s, runners signing in
 * and entering at 2,000 in 10 minutes, and friends uploading notes at 5 a second to those apps'
 * links, so held requests wake and convert. The window is shorter than a morning (120 s; 4 s and
 * 50 apps in the smoke run), the rates are not.
 */
import type { Section } from '../../report.js';
import type { BenchContext } from '../context.js';
import { measureRaceMorning } from './measurement.js';
import { racemorningReport } from './report.js';
import { RaceMorning, racemorningPlan } from './scenario.js';

export async function racemorningSection(ctx: BenchContext): Promise<Section> {
  const run = await RaceMorning.start(ctx, racemorningPlan(ctx.smoke));
  try {
    await run.setup();
    const quiet = await run.quietPhase();
    await run.crowdSetup();
    const window = await run.window();
    const drain = await run.drain(window);
    return racemorningReport(run, measureRaceMorning(run, quiet, window, drain), window, drain);
  } finally {
    await run.stop();
  }
}
