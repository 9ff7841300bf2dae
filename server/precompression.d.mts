export const PRECOMPRESSED_ENCODINGS: ['br', 'gzip'];
export const BUILD_BROTLI_QUALITY: number;
export const RENDER_BROTLI_QUALITY: number;
export const GZIP_LEVEL: number;
export function precompressed(body: Buffer, brotliQuality: number): Promise<{ br: Buffer; gzip: Buffer }>;
