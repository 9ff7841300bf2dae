/**
 * The loopback push service of the push bench (bench/sections/push.ts), in a process of its own so
 * its work is not counted as the sender's CPU. It makes PUSH_SUBSCRIPTIONS subscriptions and prints
 * them as its first line; then one line per answer ("<ms> <status> <topic>"). Its answers, seeded:
 * PUSH_SLOW_SHARE of pushes wait 200-1500 ms, PUSH_GONE_SHARE of subscriptions answer 410 from the
 * first push on, and between the two epoch-ms times of a "storm <from> <until>" line on stdin
 * PUSH_STORM_SHARE of answers are 429 with Retry-After: 1-3 (times, not "on"/"off" lines, so a
 * busy machine delaying the pipe does not move the storm). "end" on stdin closes it.
 */
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '../../stand-ins/seededRandom.js';
import { startPushService } from '../../stand-ins/pushService.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const random = seededRandom(env('PUSH_SEED', 42));
const gone = new Set<string>();
let storm: [number, number] = [0, 0];

const service = await startPushService({
  verify: false,
  answer(endpoint) {
    if (gone.has(endpoint)) return { status: 410 };
    const now = Date.now();
    if (now >= storm[0] && now < storm[1] && random() < env('PUSH_STORM_SHARE', 0.8)) return { status: 429, retryAfter: String(1 + Math.floor(random() * 3)) };
    if (random() < env('PUSH_SLOW_SHARE', 0.05)) return { status: 201, after: sleep(200 + random() * 1300) };
    return undefined;
  },
  onAnswer(_endpoint, topic, status) {
    process.stdout.write(`${Date.now()} ${status} ${topic ?? '-'}\n`);
  },
});
const subs = Array.from({ length: env('PUSH_SUBSCRIPTIONS', 100) }, () => service.subscribe());
for (const sub of subs) if (random() < env('PUSH_GONE_SHARE', 0.01)) gone.add(sub.endpoint);
process.stdout.write(`${JSON.stringify({ host: service.host, caPem: service.caPem, subs, gone: [...gone] })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const [word, from, until] = line.split(' ');
  if (word === 'storm') storm = [Number(from), Number(until)];
  else if (word === 'end') break;
}
await service.close();
process.exit(0);
