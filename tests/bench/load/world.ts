/**
 * What the reference app's end-to-end tests run against: the real server process (conversion on),
 * the fake Apple it trusts, and a fault proxy in front of it playing the given schedule.
 */
import { startBadNetwork, type ChaosProxy, type VenueSchedule } from '../../../stand-ins/badNetwork/index.js';
import { startFakeApple, type FakeApple } from '../../../stand-ins/fakeApple.js';
import { startServer, type RunningServer } from '../../../kit/server.js';

export interface RaceDayWorld {
  apple: FakeApple;
  server: RunningServer;
  /** Started: its schedule runs from now. */
  proxy: ChaosProxy;
  close(): Promise<void>;
}

export async function startRaceDayWorld(schedule: VenueSchedule): Promise<RaceDayWorld> {
  const apple = await startFakeApple();
  const server = await startServer({
    APPLE_JWKS_URL: apple.jwksUrl,
    APPLE_AUDIENCE: apple.audience,
    SESSION_SECRET: 'raceday-test-secret-that-is-long-enough-0123',
    CONVERT_WORKER: 'on',
    LOG_LEVEL: 'warn',
  });
  const proxy = await startBadNetwork({ host: '127.0.0.1', port: server.port }, { kind: 'venue', schedule });
  proxy.start();
  return {
    apple,
    server,
    proxy,
    async close() {
      await proxy.close();
      await server.stop();
      await apple.close();
    },
  };
}
