/** npm run bench:ingest: the server's ingest benchmark on its own (bench/load/ingest.ts), printed as a table. */
import { main } from './load/ingest.js';

await main();
