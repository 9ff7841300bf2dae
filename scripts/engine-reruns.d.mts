export const BROWSER_GONE: string;
export function engineReruns(report: unknown): { rerunAfterBrowserStopped: string[]; flaky: string[] };
export function testName(spec: { file: string; line: number; title: string }, test: { projectName: string }): string;
