// Guards every fetch of a URL a merchant gave us (logo, store URL) so that it cannot be used to reach our
// own network: loopback, private ranges, cloud metadata, and the like.
//
// Known gap, kept on purpose: check() resolves the host, then fetch() resolves it again, so a hostile DNS
// server can answer a public address first and a private one second (DNS rebinding). Production should
// send merchant fetches through an egress proxy that enforces the same rules on the address it actually
// connects to; this guard is the first line and what turns bad input into a clear INVALID_INPUT. Callers
// on node:http(s) close the gap with `lookup`: the connection goes to the very addresses it checked (the merchant
// webhooks' sender; the store calls, through security/pinned-fetch.ts).
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';

export type UnsafeAddressReason =
  | 'loopback'
  | 'unspecified'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'benchmark'
  | 'documentation';

export type UnsafeUrlReason =
  | 'invalid_url'
  | 'scheme'
  | 'credentials'
  | 'blocked_host'
  | 'control_path'
  | 'unresolvable'
  | UnsafeAddressReason
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  | 'unreachable';

/** A URL we will not fetch; `message` is written for the merchant (the API answers INVALID_INPUT). */
export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError';
  readonly reason: UnsafeUrlReason;

  constructor(reason: UnsafeUrlReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

export interface UrlGuardOptions {
  allowHttp?: boolean;
  /**
   * Origins exempt from the host and address checks (the local sandbox in development) — except for their control
   * paths (`/_control…`, docs/sandbox.md), which reset, fault or drive a simulator and are never a merchant's URL.
   */
  allowedOrigins?: string[];
  /** Host to addresses; defaults to the system resolver (the one fetch itself uses). */
  resolve?: (host: string) => Promise<string[]>;
}

export interface GuardedFetchInit {
  method?: string;
  /** For the whole exchange, redirects and body included (default 5 s). */
  timeoutMs?: number;
  maxRedirects?: number;
  maxBytes?: number;
  headers?: Record<string, string>;
}

export interface GuardedResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  finalUrl: string;
}

export interface UrlGuard {
  /** The origins let through without the host and address checks (the API's schemas state them in the document). */
  readonly allowedOrigins: readonly string[];
  check(url: string): Promise<URL>;
  fetch(url: string, init?: GuardedFetchInit): Promise<GuardedResponse>;
  /**
   * A `lookup` for node:http(s) requests (and net.connect): resolves with the guard's resolver and refuses an
   * unsafe address with UnsafeUrlError, so what is connected to is what was checked. IP literals never reach a
   * lookup: check() judges them.
   */
  readonly lookup: LookupFunction;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
// Sent to the origin the caller meant; a redirect elsewhere must not carry them along.
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];
// Cloud metadata names that resolve to internal addresses from inside the provider's network.
const BLOCKED_NAMES: ReadonlySet<string> = new Set(['localhost', 'metadata', 'metadata.goog', 'instance-data']);

/**
 * A sandbox simulator's control path, however it is spelt: the URL parser has already resolved dot segments (also
 * `%2e`); here percent-escapes are decoded (repeatedly) and case is folded, and a `_control` segment anywhere counts
 * (a simulator has no other path holding one), so double escapes and dot segments hidden by them do not get past.
 */
export function isControlPath(url: URL): boolean {
  let path = url.pathname;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(path); i++) {
    try {
      path = decodeURIComponent(path);
    } catch {
      break;
    }
  }
  return /(?:^|[\\/])_control(?:[\\/;.]|$)/.test(path.toLowerCase());
}

export function createUrlGuard(opts: UrlGuardOptions = {}): UrlGuard {
  const resolve = opts.resolve ?? systemResolve;
  const allowedOrigins = new Set((opts.allowedOrigins ?? []).map((o) => new URL(o).origin));
  const schemes = opts.allowHttp ? ['https:', 'http:'] : ['https:'];

  async function check(raw: string): Promise<URL> {
    const url = URL.canParse(raw) ? new URL(raw) : undefined;
    if (!url) throw new UnsafeUrlError('invalid_url', 'This is not a valid URL');
    if (url.username || url.password) throw new UnsafeUrlError('credentials', 'URLs must not contain a user name or password');
    if (url.origin !== 'null' && allowedOrigins.has(url.origin)) {
      if (isControlPath(url)) throw new UnsafeUrlError('control_path', `${url.pathname} is a simulator's control path, not a URL a merchant may give`);
      return url;
    }
    if (!schemes.includes(url.protocol)) {
      throw new UnsafeUrlError('scheme', opts.allowHttp ? 'URLs must use http or https' : 'URLs must use https');
    }

    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
    if (isIP(host)) {
      refuseUnsafeAddress(host);
      return url;
    }
    // A single-label name can only mean something on a local network (search domains, /etc/hosts).
    const blocked = !host.includes('.') || BLOCKED_NAMES.has(host) || BLOCKED_SUFFIXES.some((s) => host.endsWith(s));
    if (blocked) throw new UnsafeUrlError('blocked_host', `${host} is not a public host name`);

    const addresses = await resolve(host).catch((err: unknown) => {
      throw new UnsafeUrlError('unresolvable', `${host} could not be resolved`, { cause: err });
    });
    if (addresses.length === 0) throw new UnsafeUrlError('unresolvable', `${host} has no address`);
    // Every address, not just the first: the client may connect to any of them.
    for (const address of addresses) refuseUnsafeAddress(address);
    return url;
  }

  async function guardedFetch(url: string, init: GuardedFetchInit = {}): Promise<GuardedResponse> {
    const { timeoutMs = 5_000, maxRedirects = 3, maxBytes = 2 * 1024 * 1024 } = init;
    const signal = AbortSignal.timeout(timeoutMs);
    let method = init.method ?? 'GET';
    let headers = { ...init.headers };
    let next = url;
    try {
      for (let redirects = 0; ; redirects++) {
        const target = await untilAborted(check(next), signal);
        const res = await fetch(target, { method, headers, redirect: 'manual', signal });
        const location = REDIRECT_STATUSES.has(res.status) ? res.headers.get('location') : null;
        if (location === null) {
          return { status: res.status, headers: res.headers, body: await readCapped(res, maxBytes, target), finalUrl: target.href };
        }
        await res.body?.cancel();
        if (redirects >= maxRedirects) throw new UnsafeUrlError('too_many_redirects', `${url} redirects more than ${maxRedirects} times`);
        const resolved = URL.canParse(location, target.href) ? new URL(location, target) : undefined;
        if (!resolved) throw new UnsafeUrlError('invalid_url', `${target.href} redirects to an invalid URL`);
        if (resolved.origin !== target.origin) headers = withoutCredentials(headers);
        if (res.status === 303 && method !== 'HEAD') method = 'GET'; // as browsers do; we never send a body
        next = resolved.href;
      }
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw err;
      if (signal.aborted) throw new UnsafeUrlError('timeout', `${url} did not answer within ${timeoutMs} ms`, { cause: err });
      throw new UnsafeUrlError('unreachable', `${url} could not be fetched`, { cause: err });
    }
  }

  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) throw new UnsafeUrlError('unresolvable', `${hostname} has no address`);
        for (const address of addresses) refuseUnsafeAddress(address);
        const all = addresses.map((address) => ({ address, family: isIP(address) || 4 }));
        if (options.all) callback(null, all);
        else callback(null, all[0]!.address, all[0]!.family);
      },
    ).catch((err: unknown) => callback(err instanceof Error ? (err as NodeJS.ErrnoException) : new Error(String(err)), '', 0));
  };

  return { allowedOrigins: [...allowedOrigins], check, fetch: guardedFetch, lookup: guardedLookup };
}

async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())));
}

// DNS has no AbortSignal; racing it keeps the time-out a bound on the whole exchange.
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function readCapped(res: Response, maxBytes: number, url: URL): Promise<Buffer> {
  const tooLarge = () => new UnsafeUrlError('too_large', `${url.href} is larger than ${maxBytes} bytes`);
  if (Number(res.headers.get('content-length')) > maxBytes) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return Buffer.alloc(0);
  // Counted while streaming: a missing or lying Content-Length must not let a body fill our memory.
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
}

// ---- addresses ------------------------------------------------------------------------------------
// Every address is handled as 128 bits; IPv4 as its IPv4-mapped IPv6 form (::ffff:a.b.c.d), so one table
// covers both families and a mapped literal such as ::ffff:127.0.0.1 cannot slip past the IPv4 rules.

const MAPPED_PREFIX = 0xffffn << 32n;

const ADDRESS_DESCRIPTIONS: Record<UnsafeAddressReason, string> = {
  loopback: 'is a loopback address',
  unspecified: 'is an unspecified address',
  private: 'is in a private network',
  link_local: 'is a link-local address',
  cgnat: 'is in the carrier-grade NAT range',
  multicast: 'is a multicast address',
  reserved: 'is in a reserved range',
  benchmark: 'is in the benchmarking range',
  documentation: 'is in a documentation range',
};

// First match wins, so narrower entries come before the wider ones that contain them.
const RANGES: ReadonlyArray<{ base: bigint; bits: number; reason: UnsafeAddressReason }> = (
  [
    ['0.0.0.0/8', 'unspecified'],
    ['10.0.0.0/8', 'private'],
    ['100.64.0.0/10', 'cgnat'],
    ['127.0.0.0/8', 'loopback'],
    ['169.254.0.0/16', 'link_local'], // includes 169.254.169.254, the cloud metadata service
    ['172.16.0.0/12', 'private'],
    ['192.0.0.0/24', 'reserved'],
    ['192.0.2.0/24', 'documentation'],
    ['192.88.99.0/24', 'reserved'],
    ['192.168.0.0/16', 'private'],
    ['198.18.0.0/15', 'benchmark'],
    ['198.51.100.0/24', 'documentation'],
    ['203.0.113.0/24', 'documentation'],
    ['224.0.0.0/4', 'multicast'],
    ['240.0.0.0/4', 'reserved'], // includes 255.255.255.255
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
    ['64:ff9b:1::/48', 'private'], // local-use NAT64
    ['100::/64', 'reserved'], // discard-only
    ['2001:2::/48', 'benchmark'],
    ['2001:db8::/32', 'documentation'],
    ['2001::/23', 'reserved'], // IETF protocol assignments, Teredo
    ['2002::/16', 'reserved'], // 6to4, which embeds any IPv4 address
    ['3fff::/20', 'documentation'],
    ['fc00::/7', 'private'],
    ['fe80::/10', 'link_local'],
    ['fec0::/10', 'private'], // deprecated site-local
    ['ff00::/8', 'multicast'],
  ] as const
).map(([cidr, reason]) => {
  const [ip = '', bits = ''] = cidr.split('/');
  const base = parseAddress(ip);
  if (base === undefined) throw new Error(`malformed range ${cidr}`);
  return { base, bits: Number(bits) + (isIP(ip) === 4 ? 96 : 0), reason };
});

const inRange = (address: bigint, base: bigint, bits: number) => address >> BigInt(128 - bits) === base >> BigInt(128 - bits);

function refuseUnsafeAddress(text: string): void {
  const reason = classify(text);
  if (reason) throw new UnsafeUrlError(reason, `address ${text} ${ADDRESS_DESCRIPTIONS[reason]}`);
}

function classify(text: string): UnsafeAddressReason | undefined {
  let address = parseAddress(text);
  if (address === undefined) return 'reserved';
  // Well-known NAT64 prefix (64:ff9b::/96): judge the IPv4 address it stands for.
  if (inRange(address, 0x64ff9bn << 96n, 96)) address = MAPPED_PREFIX | (address & 0xffffffffn);
  const match = RANGES.find((r) => inRange(address, r.base, r.bits));
  if (match) return match.reason;
  // Beyond the listed ranges, only IPv4 and global unicast IPv6 (2000::/3) are reachable on the internet.
  const isMappedV4 = inRange(address, MAPPED_PREFIX, 96);
  return isMappedV4 || inRange(address, 0x2000n << 112n, 3) ? undefined : 'reserved';
}

/** 128-bit value of an IPv4 (as IPv4-mapped) or IPv6 address, or undefined for anything else. */
function parseAddress(text: string): bigint | undefined {
  const ip = text.replace(/%.*$/, ''); // zone index of a scoped address (fe80::1%eth0)
  const family = isIP(ip);
  if (family === 4) return MAPPED_PREFIX | ipv4Groups(ip).reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
  if (family !== 6) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ipv4Groups(g) : [parseInt(g, 16)])));
  const [head = '', tail] = ip.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

function ipv4Groups(ip: string): number[] {
  const [a = 0, b = 0, c = 0, d = 0] = ip.split('.').map(Number);
  return [(a << 8) | b, (c << 8) | d];
}
