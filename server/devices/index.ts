/**
 * The phones friends record on, as the routes see them: which phone a request comes from (only a
 * cookie this server issued names one), what it opened, and its links given back with their tokens
 * (the home screen's list). The cookie is ./cookie.ts's, the bound on new ones ./issue-limit.ts's,
 * the seal ./sealed.ts's, the rows the repository's device store.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { DeviceLink, LinkView, Repository } from '../db/repository.js';
import { DEVICE_LINK_PHONES_MAX } from '../db/device-store.js';
import { createDeviceCookies, DEVICE_COOKIE_DAYS } from './cookie.js';
import { createIssueLimit } from './issue-limit.js';
import { createDeviceLinkSeal } from './sealed.js';

/** A link this phone opened, with its token when the seal still opens. */
export interface PhoneLink extends Omit<DeviceLink, 'sealedToken'> {
  token: string | undefined;
}

export interface Devices {
  /**
   * A recorder link opened on this phone: the phone keeps its cookie, or gets one unless its client
   * had its hour's new cookies (DEVICE_COOKIES_PER_HOUR), and the link joins its list. The phone's
   * id, or undefined when it has none (the link opens all the same). Callable from any route under
   * the cookie plugin.
   */
  opened(req: FastifyRequest, reply: FastifyReply, link: LinkView, token: string, at: number): Promise<string | undefined>;
  /** The phone's id when the request carries a cookie this server issued. */
  idOf(req: FastifyRequest): string | undefined;
  /** The phone's id when its cookie is ours, whose life (cookie and rows) then starts again; undefined otherwise. */
  renew(req: FastifyRequest, reply: FastifyReply, at: number): Promise<string | undefined>;
  /** Whether this phone opened this link: only such a phone subscribes to its pushes and alerts. */
  hasOpened(deviceId: string, linkId: string): Promise<boolean>;
  /** The links the phone opened, the latest first. */
  linksOf(deviceId: string): Promise<PhoneLink[]>;
  /** Takes a link off the phone's list; false when it was not on it. */
  forget(deviceId: string, linkId: string): Promise<boolean>;
  /** Removes the rows of phones not seen for the cookie's life; how many went. */
  sweep(now: number): Promise<number>;
}

export interface DeviceLimits {
  /** New cookies per client per hour (config DEVICE_COOKIES_PER_HOUR). */
  cookiesPerHour: number;
  /** Phones one link keeps (the device store's DEVICE_LINK_PHONES_MAX). */
  phonesPerLink?: number;
}

export const DEVICE_LIFE_MS = DEVICE_COOKIE_DAYS * 24 * 3600_000;

export function createDevices(repo: Pick<Repository, 'devices'>, sessionSecret: Uint8Array, limits: DeviceLimits): Devices {
  const cookies = createDeviceCookies(sessionSecret);
  const seal = createDeviceLinkSeal(sessionSecret);
  const issued = createIssueLimit(limits.cookiesPerHour);
  const phonesPerLink = limits.phonesPerLink ?? DEVICE_LINK_PHONES_MAX;
  return {
    async opened(req, reply, link, token, at) {
      const deviceId = cookies.renew(req, reply) ?? (issued.take(req.ip, at) ? cookies.issue(req, reply) : undefined);
      if (deviceId === undefined) return undefined;
      await repo.devices.remember(deviceId, link.linkId, seal.seal(deviceId, link.linkId, token), at, phonesPerLink);
      return deviceId;
    },
    idOf: (req) => cookies.idOf(req),
    async renew(req, reply, at) {
      const deviceId = cookies.renew(req, reply);
      if (deviceId !== undefined) await repo.devices.seen(deviceId, at);
      return deviceId;
    },
    hasOpened: (deviceId, linkId) => repo.devices.has(deviceId, linkId),
    async linksOf(deviceId) {
      return (await repo.devices.linksOf(deviceId)).map(({ sealedToken, ...link }) => ({ ...link, token: seal.open(deviceId, link.linkId, sealedToken) }));
    },
    forget: (deviceId, linkId) => repo.devices.forget(deviceId, linkId),
    sweep: (now) => repo.devices.sweep(now - DEVICE_LIFE_MS),
  };
}

/** How often each server removes the rows of phones unseen for the cookie's life. */
export const DEVICE_SWEEP_MS = 3_600_000;

/** Sweeps every `everyMs` on this server (several servers sweeping is harmless); returns the stop. */
export function startDeviceSweep(devices: Devices, everyMs: number, log: FastifyBaseLogger): () => void {
  const timer = setInterval(() => {
    devices.sweep(Date.now()).then(
      (removed) => removed > 0 && log.info({ removed }, 'device links of phones unseen for 400 days removed'),
      (err: unknown) => log.error({ err }, 'sweeping old device links failed; the next sweep tries again'),
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
