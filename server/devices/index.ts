/**
 * The phones friends record on, as the routes see them: which phone a request comes from, what it
 * opened, and its links given back with their tokens (the installed app's list). The cookie is
 * ./cookie.ts's, the seal ./sealed.ts's, the rows the repository's device store.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DeviceLink, LinkView, Repository } from '../db/repository.js';
import { deviceIdOf, ensureDeviceId, renewDeviceCookie } from './cookie.js';
import { createTokenSeal } from './sealed.js';

export { deviceIdOf, renewDeviceCookie };

/** A link this phone opened, with its token when the seal still opens. */
export interface PhoneLink extends Omit<DeviceLink, 'sealedToken'> {
  token: string | undefined;
}

export interface Devices {
  /** A recorder link opened on this phone: the phone gets (or keeps) its cookie, and the link joins its list. */
  opened(req: FastifyRequest, reply: FastifyReply, link: LinkView, token: string, at: number): Promise<string>;
  /** The links the phone opened, the latest first. */
  linksOf(deviceId: string): Promise<PhoneLink[]>;
  /** Takes a link off the phone's list; false when it was not on it. */
  forget(deviceId: string, linkId: string): Promise<boolean>;
}

export function createDevices(repo: Pick<Repository, 'devices'>, sessionSecret: Uint8Array): Devices {
  const seal = createTokenSeal(sessionSecret);
  return {
    async opened(req, reply, link, token, at) {
      const deviceId = ensureDeviceId(req, reply);
      await repo.devices.remember(deviceId, link.linkId, seal.seal(link.linkId, token), at);
      return deviceId;
    },
    async linksOf(deviceId) {
      return (await repo.devices.linksOf(deviceId)).map(({ sealedToken, ...link }) => ({ ...link, token: seal.open(link.linkId, sealedToken) }));
    },
    forget: (deviceId, linkId) => repo.devices.forget(deviceId, linkId),
  };
}
