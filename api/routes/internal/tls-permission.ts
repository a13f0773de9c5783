// The TLS edge's permission question (Caddy's on-demand TLS `ask`, docs/deployment.md "HTTPS: the TLS edge"):
// `GET /internal/tls/allow?domain=<name>` answers 200 when the service may obtain a certificate for that name, and
// 403 otherwise (500 if the lookup fails) (Caddy treats anything but 2xx as "no", so every failure refuses: fail closed).
//
// Allowed: the service's own hosts (the dashboard's APP_ORIGIN, PUBLIC_API_URL, SERVICE_DOMAIN itself),
// `{slug}.{SERVICE_DOMAIN}` of an existing merchant, and `checkout.<domain>` once its DNS verification passed (the
// custom-domain-<merchantId> workflow set it VERIFIED) — exactly the hosts merchantForCheckoutHost serves, so a name
// that would serve nothing never gets a certificate, and a pending, failed, expired, removed or re-assigned claim is
// refused.
//
// Who may ask: only a peer on loopback or one of TRUST_PROXY's addresses (the edge), and only directly: a request that
// came through a proxy (it carries X-Forwarded-For or Forwarded, which Caddy and nginx always set) is refused, and the
// edge itself answers 404 for /internal/* from the outside. Anyone else gets 403 before any lookup.
//
// Freshness: an answer is kept in this process's memory — "yes" for 60 s, "no" for 5 s (bounded, 10,000 names);
// a failed lookup is not kept. So a newly verified domain is allowed within 5 s, and a removed one refused within
// 60 s. The edge asks only on handshakes for names it does not hold (in memory or in its certificate storage),
// so this route's outage stops new issuance only, never TLS for names already issued.
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../../config/index.js';
import type { Db } from '../../../prisma/client.js';
import { AppError } from '../../../domain/errors.js';
import { normalizeHostname } from '../../../domain/hostnames.js';
import { merchantForCheckoutHost } from '../../checkout-host.js';
import { errorResponse } from '../../schemas/common.js';
import type { RouteDeps } from '../../route-deps.js';

export const TLS_PERMISSION_PATH = '/internal/tls/allow';
export const TLS_PERMISSION_YES_TTL_MS = 60_000;
export const TLS_PERMISSION_NO_TTL_MS = 5_000;

/** A DNS name (one label or more); an IP address is not one (ACME on-demand certificates are for names only). */
const HOSTNAME = /^(?=.{1,253}$)(?![0-9.]+$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Whether a certificate may be obtained for `name`: the hosts this service serves, nothing else. One indexed read at most. */
export async function mayHoldCertificate(db: Db, config: Pick<Config, 'serviceDomain' | 'appOrigin' | 'publicApiUrl'>, name: string): Promise<boolean> {
  const own = new Set([normalizeHostname(config.serviceDomain), new URL(config.appOrigin).hostname, new URL(config.publicApiUrl).hostname]);
  if (own.has(name)) return true;
  return (await merchantForCheckoutHost(db, config, name)) !== null;
}

/** Loopback, or one of TRUST_PROXY's addresses and subnets (the edge). */
export function internalPeers(trustProxy: Config['api']['trustProxy']): BlockList {
  const peers = new BlockList();
  peers.addSubnet('127.0.0.0', 8, 'ipv4');
  peers.addAddress('::1', 'ipv6');
  if (typeof trustProxy === 'string') {
    for (const entry of trustProxy.split(',')) {
      const [address, bits] = entry.split('/');
      const type = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
      if (!isIP(address!)) continue;
      if (bits === undefined) peers.addAddress(address!, type);
      else peers.addSubnet(address!, Number(bits), type);
    }
  }
  return peers;
}

function isInternalPeer(peers: BlockList, remote: string | undefined): boolean {
  if (!remote) return false;
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remote);
  const address = v4mapped ? v4mapped[1]! : remote;
  const type = isIP(address) === 6 ? 'ipv6' : isIP(address) === 4 ? 'ipv4' : undefined;
  return type !== undefined && peers.check(address, type);
}

export const tlsPermissionRoutes: FastifyPluginAsyncZod<Pick<RouteDeps, 'db' | 'config'>> = async (app, { db, config }) => {
  const peers = internalPeers(config.api.trustProxy);
  const cache = new Map<string, { allowed: boolean; until: number }>();
  const pending = new Map<string, Promise<boolean>>();
  /** The cached answer while fresh; else one read (concurrent handshakes for one name share it), kept by the rule above. */
  const allowed = (name: string): Promise<boolean> => {
    const hit = cache.get(name);
    if (hit && hit.until > Date.now()) return Promise.resolve(hit.allowed);
    const inFlight = pending.get(name);
    if (inFlight) return inFlight;
    const read = mayHoldCertificate(db, config, name)
      .then((yes) => {
        cache.delete(name);
        if (cache.size >= 10_000) cache.delete(cache.keys().next().value!);
        cache.set(name, { allowed: yes, until: Date.now() + (yes ? TLS_PERMISSION_YES_TTL_MS : TLS_PERMISSION_NO_TTL_MS) });
        return yes;
      })
      .finally(() => pending.delete(name));
    pending.set(name, read);
    return read;
  };

  app.get(TLS_PERMISSION_PATH, {
    schema: {
      tags: ['operations'],
      summary: 'Internal: may the TLS edge obtain a certificate for this name? (loopback and the edge only)',
      description:
        'Asked by the TLS edge (Caddy on-demand TLS `ask`) before it orders a certificate. 200: allowed (a service host, an existing merchant subdomain, a verified custom domain). ' +
        '403 FORBIDDEN: not allowed, or the caller is not the edge. Answers are cached: yes 60 s, no 5 s.',
      querystring: z.object({ domain: z.string().min(1).max(253).describe('The TLS server name the edge was asked for') }),
      response: { 200: z.object({ allowed: z.literal(true), domain: z.string() }), 403: errorResponse },
    },
  }, async (request) => {
    const proxied = request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined;
    if (proxied || !isInternalPeer(peers, request.socket.remoteAddress)) throw new AppError('FORBIDDEN', 'Only the TLS edge may ask this, directly');
    const name = normalizeHostname(request.query.domain);
    // Not a DNS name (an IP address, garbage): refused like any name we do not serve, with no lookup.
    if (HOSTNAME.test(name) && (await allowed(name))) return { allowed: true as const, domain: name };
    throw new AppError('FORBIDDEN', `No certificate for ${name}: not a host this service serves`);
  });
};
