/**
 * `npm start`: the server as the environment configures it (./config/), on the real clock. No
 * setting puts it on another: only the demo runs a compressed clock, through its own entry
 * (demo/serve.ts). How it listens and stops: ./serve.ts.
 */
import { loadConfig } from './config/index.js';
import { serve } from './serve.js';

await serve(loadConfig());
