// DNS lookups for custom-domain verification, on node:dns's c-ares resolver pointed at explicit servers:
// the sandbox simulator locally, public or the operator's resolvers in production.
// The absence of a record is an answer (NXDOMAIN / no data → []), not an error; a server that does not answer
// in time is IntegrationError 'timeout', any other failure (SERVFAIL, refused, ...) 'unavailable'.
import { promises as dns } from 'node:dns';
import { IntegrationError } from '../errors.js';

export interface DnsClientOptions {
  /** "host" or "host:port" ("[v6]:port" for IPv6), e.g. ['127.0.0.1:5354'] or ['1.1.1.1', '8.8.8.8']. */
  servers: string[];
  /** Time-out of one try in ms (default 2000). */
  timeoutMs?: number;
  /** Tries per server before giving up (default 2). */
  tries?: number;
}

export interface DnsClient {
  /** Targets of the CNAME at `name`, lower-case and without the trailing dot. */
  resolveCname(name: string): Promise<string[]>;
  /** TXT values at `name`, each with its 255-byte strings joined back together. */
  resolveTxt(name: string): Promise<string[]>;
  /** IPv4 addresses of `name` (CNAMEs followed by the server). */
  resolveA(name: string): Promise<string[]>;
}

const SYSTEM = 'dns';
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);

export function createDnsClient(options: DnsClientOptions): DnsClient {
  if (!options.servers.length) throw new Error('dns: at least one server is required');
  const timeoutMs = options.timeoutMs ?? 2_000;
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: options.tries ?? 2 });
  resolver.setServers(options.servers);

  async function lookup<T>(type: string, name: string, run: () => Promise<T[]>): Promise<T[]> {
    try {
      return await run();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (NO_RECORD.has(code)) return [];
      const what = `${SYSTEM}: ${type} ${name} via ${options.servers.join(', ')}`;
      if (code === 'ETIMEOUT') throw new IntegrationError(SYSTEM, 'timeout', `${what} did not answer within ${timeoutMs} ms`, { cause: err });
      if (code === 'EBADNAME') throw new IntegrationError(SYSTEM, 'rejected', `${what}: not a valid domain name`, { cause: err });
      throw new IntegrationError(SYSTEM, 'unavailable', `${what} failed: ${code || (err as Error).message}`, { cause: err });
    }
  }

  const clean = (host: string) => host.toLowerCase().replace(/\.$/, '');
  return {
    resolveCname: (name) => lookup('CNAME', name, () => resolver.resolveCname(name)).then((hosts) => hosts.map(clean)),
    resolveTxt: (name) => lookup('TXT', name, () => resolver.resolveTxt(name)).then((records) => records.map((chunks) => chunks.join(''))),
    resolveA: (name) => lookup('A', name, () => resolver.resolve4(name)),
  };
}
