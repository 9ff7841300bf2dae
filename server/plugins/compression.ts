/**
 * Compresses what the server makes per request (API JSON) with brotli or gzip, as the client
 * asks. The site's files are compressed once at build time and sent as they are (routes/site.ts);
 * audio is never touched: its types are not compressible, 206/Content-Range replies are skipped,
 * and request bodies are never decompressed (uploads are raw audio, checked byte for byte).
 */
import compress from '@fastify/compress';
import fp from 'fastify-plugin';
import { PRECOMPRESSED_ENCODINGS } from '../precompression.mjs';

/** Below this a response gains too little to be worth compressing (one packet either way). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

export const compression = fp(async (app) => {
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESS_THRESHOLD_BYTES,
    // Only what the build also makes, so a static file is either sent precompressed or as it is,
    // never compressed again on the fly.
    encodings: [...PRECOMPRESSED_ENCODINGS],
  });
});
