export const BROWSER_GONE: string;
export function engineReruns(report: unknown): { rerunAfterBrowserEnded: string[]; flaky: string[] };
