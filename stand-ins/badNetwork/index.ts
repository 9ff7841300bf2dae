/**
 * The bad network: one stand-in, on 127.0.0.1 in front of a server, for every test, the bench and
 * the demo that need a network worse than loopback. Browsers and clients connect to its port
 * instead of the server's. Its modes:
 *   venue   a race venue's network playing a seeded schedule (offline windows, failing requests,
 *           one slow shared link, short-lived connections), logging every request's fate (HTTP)
 *   link    a phone's link at the TCP level: handshake round trip, delay, a shared rate (TCP)
 *   faults  failures on a test's command: unreachable, uploads answered with a status or cut,
 *           requests held until released (HTTP)
 *   cut     every connection cut after it carried a number of bytes up, the link dropping (TCP)
 */
import { startCuttingLink, type CuttingProxy } from './cut.js';
import { startFaultNetwork, type FaultProxy } from './faults.js';
import type { Target } from './front.js';
import { startLinkModel, type LinkModel, type LinkShape } from './link.js';
import { startVenueNetwork, type ChaosProxy, type ProxyHooks, type VenueSchedule } from './venue.js';

export type { CuttingProxy } from './cut.js';
export type { FaultProxy, UploadFault, UploadSeen } from './faults.js';
export type { Target } from './front.js';
export { epochNow, ONE_BAR, type LinkModel, type LinkShape } from './link.js';
export type { ChaosProxy, Fate, ProxyHooks, ProxyLogEntry, VenueSchedule } from './venue.js';

export interface VenueMode {
  kind: 'venue';
  schedule: VenueSchedule;
  /** What the proxy may ask the server behind it, to account for every byte. */
  hooks?: ProxyHooks;
}
export interface LinkMode {
  kind: 'link';
  shape: LinkShape;
}
export interface FaultsMode {
  kind: 'faults';
}
export interface CutMode {
  kind: 'cut';
  /** Bytes towards the server a connection carries before the link drops. */
  afterBytes: number;
}
export type BadNetworkMode = VenueMode | LinkMode | FaultsMode | CutMode;

/** Starts the bad network in `mode` in front of `target`; the venue's schedule waits for its start(). */
export function startBadNetwork(target: Target, mode: VenueMode): Promise<ChaosProxy>;
export function startBadNetwork(target: Target, mode: LinkMode): Promise<LinkModel>;
export function startBadNetwork(target: Target, mode: FaultsMode): Promise<FaultProxy>;
export function startBadNetwork(target: Target, mode: CutMode): Promise<CuttingProxy>;
export function startBadNetwork(target: Target, mode: BadNetworkMode): Promise<ChaosProxy | LinkModel | FaultProxy | CuttingProxy> {
  switch (mode.kind) {
    case 'venue':
      return startVenueNetwork(target, mode.schedule, mode.hooks);
    case 'link':
      return startLinkModel(target, mode.shape);
    case 'faults':
      return startFaultNetwork(target);
    case 'cut':
      return startCuttingLink(target, mode.afterBytes);
  }
}
