/**
 * Run as a child with a test server's environment: starts a race on the straight test course a
 * given number of minutes ago (through the race catalogue, adding the race if it is missing), and
 * prints its start (epoch ms).
 */
import { loadConfig } from '../../../server/config/index';
import { openRepository } from '../../../server/db/index';
import { startRace } from '../../server/support/live-race';

const [raceId = 'chicago-2099', minutesAgo = '60'] = process.argv.slice(2);
const repo = await openRepository(loadConfig(process.env));
try {
  console.log(JSON.stringify({ start: await startRace(repo, raceId, Number(minutesAgo)) }));
} finally {
  await repo.close();
}
