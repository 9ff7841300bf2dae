export function nodeWanted(): { range: string; lowest: [number, number, number]; words: string };
export function nodeSupported(version?: string): boolean;
export function nodeRefusal(version?: string): string | undefined;
export function nodeHowToGet(again?: string): string;
