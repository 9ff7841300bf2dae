export const API_TYPES: string;
export function servedDocument(): Promise<Record<string, unknown>>;
export function apiTypes(doc: Record<string, unknown>): Promise<string>;
