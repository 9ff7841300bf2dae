/**
 * Owns which peers are our proxies (TRUST_PROXY): compiled once, by the library Fastify itself uses,
 * and handed to Fastify (req.ip, req.protocol and req.host follow it), so the warning below judges
 * a peer exactly as every limit and the request's protocol do.
 */
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance } from 'fastify';
import type { TrustProxy } from '../config/index.js';

/** Whether the peer at `address`, `hop` hops from us, is a proxy of ours. */
export type TrustedProxy = (address: string, hop: number) => boolean;

export const trustedProxyOf = (trustProxy: TrustProxy): TrustedProxy | false => (trustProxy === false ? false : proxyAddr.compile(trustProxy));

/**
 * Says once in the log when a request from a proxy of ours comes without X-Forwarded-Proto (nginx
 * sends none unless told): the server then takes it for plain HTTP. The device cookie does not
 * hang on it when PUBLIC_URL is https, but anything that reads the request's protocol does.
 */
export function warnOfProxyWithoutProto(app: FastifyInstance, trusted: TrustedProxy | false): void {
  if (!trusted) return;
  let said = false;
  app.addHook('onRequest', async (req) => {
    if (said || req.headers['x-forwarded-proto'] !== undefined) return;
    const peer = req.socket.remoteAddress;
    if (peer === undefined || !trusted(peer, 0)) return;
    said = true;
    app.log.warn(
      { peer },
      'a request from a proxy of TRUST_PROXY came without X-Forwarded-Proto, so it is taken for plain HTTP: have the proxy send it ' +
        '(nginx: proxy_set_header X-Forwarded-Proto $scheme; Caddy sends it). Said once.',
    );
  });
}
