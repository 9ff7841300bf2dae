import { expect, test } from './fixtures';

// The server's Content-Security-Policy allows only our own files and hashed inline scripts
// and styles (the shells carry the stylesheet inline); every page must work within it,
// without a single refusal in the console.
for (const path of ['/', '/terms', '/privacy', '/no-such-page', '/r/link', '/s/some-token']) {
  test(`should load ${path} without any Content-Security-Policy violation`, async ({ page, server, consoleMessages }) => {
    const url = path === '/r/link' ? `/r/${await server.createLink()}` : path;
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { reportViolation(t: string): void }).reportViolation(`${e.violatedDirective} ${e.blockedURI}`),
      ),
    );
    const response = await page.goto(url);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.waitForLoadState('networkidle');
    if (path === '/terms') await expect(page.locator('[data-today]')).not.toHaveText('');
    expect(violations).toEqual([]);
    expect(consoleMessages.filter((m) => m.includes('Content Security Policy'))).toEqual([]);
  });
}
