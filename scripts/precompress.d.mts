export const COMPRESSIBLE: RegExp;
export function precompressFile(file: string): Promise<{ raw: number; br: number }>;
export function precompress(dir: string): Promise<{ raw: number; br: number }>;
