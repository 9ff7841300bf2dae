/**
 * The phones friends record on, as the routes see them: which phone a request comes from (only a
 * cookie this server issued names one), the links it is on, and its links given back with their
 * tokens (the home screen's list). The cookie is ./cookie.ts's, the seal ./sealed.ts's, the rows
 * and the bounds on a link's phones the repository's device store. A cookie costs nothing (it is a
 * MAC, no row), so every phone is given one; what costs, a phone on a link, is bounded per link.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { createLoop, type Loop } from '../background/loop.js';
import type { DeviceLink, LinkView, Repository } from '../db/repository.js';
import { DEVICE_LINK_PHONES_MAX, NEW_PHONES_WINDOW_MS, type Joined, type LinkPhoneLimits } from '../db/device-store.js';
import { createDeviceCookies, DEVICE_COOKIE_DAYS } from './cookie.js';
import { createDeviceLinkSeal } from './sealed.js';

export type { Joined } from '../db/device-store.js';

/** A link this phone opened, with its token when the seal still opens. */
export interface PhoneLink extends Omit<DeviceLink, 'sealedToken'> {
  token: string | undefined;
}

export interface Devices {
  /**
   * A recorder link opened on this phone: the phone keeps its cookie or gets one, and comes onto the
   * link (its list) when the link takes it (the device store's bounds; the recorder opens either way).
   * The phone's id. Callable from any route under the cookie plugin.
   */
  opened(req: FastifyRequest, reply: FastifyReply, link: LinkView, token: string, at: number): Promise<string>;
  /** The phone's id when the request carries a cookie this server issued. */
  idOf(req: FastifyRequest): string | undefined;
  /** The phone's id when its cookie is ours, whose life (cookie and rows) then starts again; undefined otherwise. */
  renew(req: FastifyRequest, reply: FastifyReply, at: number): Promise<string | undefined>;
  /** The phone on the link, coming onto it now if the link takes it: only a phone on the link subscribes to its pushes and alerts. */
  join(deviceId: string, link: LinkView, token: string, at: number): Promise<Joined>;
  /** The phone recorded, turned notifications on or asked for an alert on the link: no newcomer pushes it off. */
  tookPart(deviceId: string, linkId: string, at: number): Promise<void>;
  /** The links the phone opened, the latest first. */
  linksOf(deviceId: string): Promise<PhoneLink[]>;
  /** Takes a link off the phone's list; false when it was not on it. */
  forget(deviceId: string, linkId: string): Promise<boolean>;
  /** Removes the rows of phones not seen for the cookie's life; how many went. */
  sweep(now: number): Promise<number>;
}

export interface DeviceOptions {
  /** The site's address: an https one makes the cookie always the __Host- one (./cookie.ts). */
  publicUrl: string;
  /** New phones one link takes an hour (config LINK_NEW_PHONES_PER_HOUR). */
  newPhonesPerHour: number;
  /** Phones one link holds (the device store's DEVICE_LINK_PHONES_MAX). */
  phonesPerLink?: number;
}

export const DEVICE_LIFE_MS = DEVICE_COOKIE_DAYS * 24 * 3600_000;

export function createDevices(repo: Pick<Repository, 'devices'>, sessionSecret: Uint8Array, options: DeviceOptions): Devices {
  const cookies = createDeviceCookies(sessionSecret, options.publicUrl);
  const seal = createDeviceLinkSeal(sessionSecret);
  const limits: LinkPhoneLimits = {
    maxPhones: options.phonesPerLink ?? DEVICE_LINK_PHONES_MAX,
    perWindow: options.newPhonesPerHour,
    windowMs: NEW_PHONES_WINDOW_MS,
  };
  const join = (deviceId: string, link: LinkView, token: string, at: number) =>
    repo.devices.remember(deviceId, link.linkId, seal.seal(deviceId, link.linkId, token), at, limits);
  return {
    async opened(req, reply, link, token, at) {
      const deviceId = cookies.renew(req, reply) ?? cookies.issue(req, reply);
      await join(deviceId, link, token, at);
      return deviceId;
    },
    idOf: (req) => cookies.idOf(req),
    async renew(req, reply, at) {
      const deviceId = cookies.renew(req, reply);
      if (deviceId !== undefined) await repo.devices.seen(deviceId, at);
      return deviceId;
    },
    join,
    tookPart: (deviceId, linkId, at) => repo.devices.tookPart(deviceId, linkId, at),
    async linksOf(deviceId) {
      return (await repo.devices.linksOf(deviceId)).map(({ sealedToken, ...link }) => ({ ...link, token: seal.open(deviceId, link.linkId, sealedToken) }));
    },
    forget: (deviceId, linkId) => repo.devices.forget(deviceId, linkId),
    sweep: (now) => repo.devices.sweep(now - DEVICE_LIFE_MS),
  };
}

/** How often each server removes the rows of phones unseen for the cookie's life. */
export const DEVICE_SWEEP_MS = 3_600_000;

/** The loop that sweeps every `everyMs` (the first a sweep's time after the start) on this server; several servers sweeping is harmless. */
export function createDeviceSweep(devices: Devices, everyMs: number, log: FastifyBaseLogger): Loop {
  const round = async () => {
    await devices.sweep(Date.now()).then(
      (removed) => removed > 0 && log.info({ removed }, 'device links of phones unseen for 400 days removed'),
      (err: unknown) => log.error({ err }, 'sweeping old device links failed; the next sweep tries again'),
    );
    return 'idle' as const;
  };
  return createLoop({ name: 'device sweep', pollMs: everyMs, waitFirst: true, round, log });
}

/** A device sweep already going; returns the stop. */
export function startDeviceSweep(devices: Devices, everyMs: number, log: FastifyBaseLogger): () => Promise<void> {
  const sweep = createDeviceSweep(devices, everyMs, log);
  sweep.start();
  return sweep.stop;
}
