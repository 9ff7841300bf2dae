/**
 * The preflight's PUBLIC_URL line: the links friends open must be HTTPS, since a phone's browser
 * gives a page its microphone only in a secure context; plain HTTP counts as one only on loopback,
 * on the computer itself. The server speaks plain HTTP, so an https PUBLIC_URL means a proxy in
 * front: without TRUST_PROXY every phone is that proxy to us, and every per-client limit is one
 * budget for all of them.
 */
import ipaddr from 'ipaddr.js';
import { fail, ok, warn, type PreflightCheck } from './finding.js';

/** A host a browser counts as this computer (and so secure over plain HTTP): localhost, *.localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

const HTTPS_FIX =
  "serve the site over HTTPS (a proxy with a certificate in front, e.g. Caddy, or nginx with Let's Encrypt) and set PUBLIC_URL=https://<that address>.";

export const publicUrlCheck: PreflightCheck = {
  name: 'public URL',
  async run({ config, env }) {
    let url: URL;
    try {
      url = new URL(config.publicUrl);
    } catch {
      return fail(`PUBLIC_URL '${config.publicUrl}' is not a URL.`, 'set PUBLIC_URL to the address friends open, e.g. https://notes.example.com.');
    }
    if (url.protocol === 'https:' && config.trustProxy === false) {
      return warn(
        `${config.publicUrl} is served through a proxy, but TRUST_PROXY is unset: every phone looks like the proxy, so all of them share one budget (notes per address, requests a minute).`,
        "set TRUST_PROXY to the proxy's addresses or CIDRs (TRUST_PROXY=loopback when it runs on this machine), and have it send X-Forwarded-For and X-Forwarded-Proto.",
      );
    }
    if (url.protocol === 'https:') return ok(`${config.publicUrl}: the links friends open are HTTPS, where their phones let the recorder use the microphone.`);
    if (url.protocol !== 'http:') return fail(`PUBLIC_URL '${config.publicUrl}' is neither https nor http.`, HTTPS_FIX);
    if (!isLoopbackHost(url.hostname)) {
      return fail(`${config.publicUrl} is plain HTTP: a friend's phone opens the recorder there but gives it no microphone (no secure context).`, HTTPS_FIX);
    }
    return warn(
      `${config.publicUrl}${env.PUBLIC_URL ? '' : ' (PUBLIC_URL is not set)'} is this computer: the links the CLI makes open nowhere else.`,
      'set PUBLIC_URL to the https:// address friends use.',
    );
  },
};
