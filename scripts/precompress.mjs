// Writes a brotli (.br) and a gzip (.gz) sibling beside every text file of the built site, once,
// at build time: the server sends them as they are (@fastify/static's preCompressed), so no
// request pays for compression and every visitor gets the smallest encoding at maximum quality
// (server/precompression.mjs owns the encodings and their settings).
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BUILD_BROTLI_QUALITY, precompressed } from '../server/precompression.mjs';

/** Text files worth compressing; images, audio and video are compressed by their own formats. */
export const COMPRESSIBLE = /\.(?:html|js|mjs|css|svg|webmanifest|json|txt|xml|map)$/;

async function* filesUnder(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full);
    else if (entry.isFile()) yield full;
  }
}

/** Writes file.br and file.gz beside one file; returns the sizes of the original and the .br. */
export async function precompressFile(file) {
  const body = await readFile(file);
  const { br, gzip } = await precompressed(body, BUILD_BROTLI_QUALITY);
  await writeFile(`${file}.br`, br);
  await writeFile(`${file}.gz`, gzip);
  return { raw: body.length, br: br.length };
}

/** Compresses every text file under dir; returns how many bytes the originals and the .br files hold. */
export async function precompress(dir) {
  let raw = 0;
  let br = 0;
  for await (const file of filesUnder(dir)) {
    if (!COMPRESSIBLE.test(file)) continue;
    const sizes = await precompressFile(file);
    raw += sizes.raw;
    br += sizes.br;
  }
  return { raw, br };
}
