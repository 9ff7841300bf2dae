import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { StatusLine } from '../../../src/recorder/StatusLine.js';

const text = (html: string) => html.replace(/<[^>]+>/g, '').replaceAll('&#x27;', "'");

describe('the status line', () => {
  it('says the phone is online and how many notes wait', () => {
    expect(text(renderToStaticMarkup(<StatusLine online waiting={0} backgroundSync />))).toBe('Online.');
    expect(text(renderToStaticMarkup(<StatusLine online waiting={2} backgroundSync />))).toBe('Online. 2 notes waiting to send.');
  });

  it('promises automatic sending only where Background Sync works', () => {
    const withSync = text(renderToStaticMarkup(<StatusLine online={false} waiting={1} backgroundSync />));
    expect(withSync).toContain("You're offline. 1 note waiting on this phone.");
    expect(withSync).toContain("Your notes will send automatically when you're back online");
    const withoutSync = text(renderToStaticMarkup(<StatusLine online={false} waiting={1} backgroundSync={false} />));
    expect(withoutSync).not.toContain('automatically');
    expect(withoutSync).toContain('This browser sends them only while this page is open: keep it open, or open it again when you have signal.');
  });

  it('tells a browser without Background Sync that notes waiting online also need the page open', () => {
    const withoutSync = text(renderToStaticMarkup(<StatusLine online waiting={1} backgroundSync={false} />));
    expect(withoutSync).toBe(
      'Online. 1 note waiting to send. This browser sends them only while this page is open: keep it open, or open it again when you have signal.',
    );
    expect(text(renderToStaticMarkup(<StatusLine online waiting={1} backgroundSync />))).toBe('Online. 1 note waiting to send.');
    expect(text(renderToStaticMarkup(<StatusLine online waiting={0} backgroundSync={false} />))).toBe('Online.');
  });
});
