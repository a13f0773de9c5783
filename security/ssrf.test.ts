import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard, UnsafeUrlError, type UnsafeUrlReason, type UrlGuardOptions } from './ssrf.js';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';

/** A resolver that answers from a table, like DNS would, and fails for unknown names. */
function fakeDns(table: Record<string, string[]>): NonNullable<UrlGuardOptions['resolve']> {
  return async (host) => {
    const answer = table[host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer;
  };
}

async function refusal(work: Promise<unknown>): Promise<UnsafeUrlError> {
  const err = await work.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(UnsafeUrlError);
  return err as UnsafeUrlError;
}

const bracketed = (ip: string) => (ip.includes(':') ? `[${ip}]` : ip);

describe('URL guard: checking merchant URLs', () => {
  const unsafeAddresses: Array<[string, string, UnsafeUrlReason]> = [
    ['loopback', '127.0.0.1', 'loopback'],
    ['loopback, anywhere in 127/8', '127.255.10.1', 'loopback'],
    ['IPv6 loopback', '::1', 'loopback'],
    ['unspecified', '0.0.0.0', 'unspecified'],
    ['"this network" 0/8', '0.1.2.3', 'unspecified'],
    ['IPv6 unspecified', '::', 'unspecified'],
    ['private 10/8', '10.0.0.5', 'private'],
    ['private 172.16/12', '172.16.0.1', 'private'],
    ['private 172.16/12, upper end', '172.31.255.254', 'private'],
    ['private 192.168/16', '192.168.1.1', 'private'],
    ['IPv6 unique local fc00::/7', 'fd12:3456:789a::1', 'private'],
    ['link-local 169.254/16', '169.254.10.20', 'link_local'],
    ['the cloud metadata address', '169.254.169.254', 'link_local'],
    ['IPv6 link-local fe80::/10', 'fe80::1', 'link_local'],
    ['carrier-grade NAT 100.64/10', '100.64.0.1', 'cgnat'],
    ['carrier-grade NAT, upper end', '100.127.255.254', 'cgnat'],
    ['multicast 224/4', '224.0.0.251', 'multicast'],
    ['IPv6 multicast', 'ff02::1', 'multicast'],
    ['reserved 240/4', '240.0.0.1', 'reserved'],
    ['broadcast', '255.255.255.255', 'reserved'],
    ['benchmarking 198.18/15', '198.19.255.1', 'benchmark'],
    ['documentation TEST-NET-1', '192.0.2.10', 'documentation'],
    ['documentation TEST-NET-2', '198.51.100.10', 'documentation'],
    ['documentation TEST-NET-3', '203.0.113.10', 'documentation'],
    ['IPv6 documentation', '2001:db8::1', 'documentation'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1', 'loopback'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254', 'link_local'],
    ['NAT64 of a private address', '64:ff9b::a00:1', 'private'],
    ['6to4, which can embed any IPv4 address', '2002:a00:1::', 'reserved'],
    ['IPv6 outside global unicast', '4000::1', 'reserved'],
  ];

  describe.each(unsafeAddresses)('given %s (%s)', (_name, ip, reason) => {
    const guard = createUrlGuard({ resolve: fakeDns({ 'shop.example.com': [ip] }) });

    it(`when the URL names it literally / it is refused as ${reason}`, async () => {
      expect((await refusal(guard.check(`https://${bracketed(ip)}/logo.png`))).reason).toBe(reason);
    });

    it(`when a host name resolves to it / it is refused as ${reason}`, async () => {
      const err = await refusal(guard.check('https://shop.example.com/logo.png'));
      expect(err.reason).toBe(reason);
      expect(err.message).toContain(`address ${ip} `);
    });
  });

  it.each([
    ['decimal', 'https://2130706433/'],
    ['octal', 'https://0177.0.0.1/'],
    ['hex', 'https://0x7f.0.0.1/'],
    ['short', 'https://127.1/'],
    ['IPv4-mapped in hex', 'https://[::ffff:7f00:1]/'],
  ])('given loopback spelled in %s form / it is refused as loopback', async (_form, url) => {
    expect((await refusal(createUrlGuard().check(url))).reason).toBe('loopback');
  });

  it('given a host with one private address among public ones / it is refused', async () => {
    const guard = createUrlGuard({ resolve: fakeDns({ 'shop.example.com': [PUBLIC_V4, PUBLIC_V6, '10.0.0.5'] }) });
    const err = await refusal(guard.check('https://shop.example.com/'));
    expect(err.message).toBe('address 10.0.0.5 is in a private network');
  });

  it.each([
    ['localhost', 'https://localhost/'],
    ['localhost with a trailing dot, in capitals', 'https://LOCALHOST./'],
    ['a .localhost name', 'https://app.localhost/'],
    ['a .local name', 'https://printer.local/'],
    ['an .internal name', 'https://db.internal/'],
    ['the GCP metadata name', 'https://metadata.google.internal/computeMetadata/v1/'],
    ['a single-label name', 'https://intranet/'],
  ])('given %s / it is refused without asking DNS', async (_name, url) => {
    const guard = createUrlGuard({ resolve: () => Promise.reject(new Error('DNS must not be asked')) });
    expect((await refusal(guard.check(url))).reason).toBe('blocked_host');
  });

  it.each([
    ['plain http', 'http://shop.example.com/'],
    ['ftp', 'ftp://shop.example.com/logo.png'],
    ['a local file', 'file:///etc/passwd'],
    ['javascript', 'javascript:alert(1)'],
  ])('given %s / it is refused with "URLs must use https"', async (_name, url) => {
    const err = await refusal(createUrlGuard({ resolve: fakeDns({ 'shop.example.com': [PUBLIC_V4] }) }).check(url));
    expect(err.reason).toBe('scheme');
    expect(err.message).toBe('URLs must use https');
  });

  it('given allowHttp / http to a public host is accepted', async () => {
    const guard = createUrlGuard({ allowHttp: true, resolve: fakeDns({ 'shop.example.com': [PUBLIC_V4] }) });
    expect((await guard.check('http://shop.example.com/')).href).toBe('http://shop.example.com/');
  });

  it('given credentials in the URL / it is refused', async () => {
    const guard = createUrlGuard({ resolve: fakeDns({ 'shop.example.com': [PUBLIC_V4] }) });
    expect((await refusal(guard.check('https://admin:hunter2@shop.example.com/'))).reason).toBe('credentials');
  });

  it.each([
    ['not a URL', 'not a url', 'invalid_url'],
    ['a name DNS does not know', 'https://nowhere.example.com/', 'unresolvable'],
    ['a name with no addresses', 'https://empty.example.com/', 'unresolvable'],
  ])('given %s / it is refused', async (_name, url, reason) => {
    const guard = createUrlGuard({ resolve: fakeDns({ 'empty.example.com': [] }) });
    expect((await refusal(guard.check(url))).reason).toBe(reason);
  });

  it.each([
    ['a host resolving to public addresses', 'https://shop.example.com/logo.png?v=2'],
    ['a public IPv4 literal', `https://${PUBLIC_V4}/logo.png`],
    ['a public IPv6 literal', `https://[${PUBLIC_V6}]/logo.png`],
    ['NAT64 of a public address', 'https://[64:ff9b::5db8:d822]/logo.png'],
  ])('given %s / it is accepted and returned parsed', async (_name, url) => {
    const guard = createUrlGuard({ resolve: fakeDns({ 'shop.example.com': [PUBLIC_V4, PUBLIC_V6] }) });
    expect((await guard.check(url)).href).toBe(new URL(url).href);
  });

  it('given an origin in allowedOrigins / it passes without address checks, and only that origin does', async () => {
    const guard = createUrlGuard({ allowedOrigins: ['http://127.0.0.1:4010'] });
    expect((await guard.check('http://127.0.0.1:4010/storefront-a/logo.png')).pathname).toBe('/storefront-a/logo.png');
    expect((await refusal(guard.check('https://127.0.0.1:4011/'))).reason).toBe('loopback');
    expect((await refusal(guard.check('http://localhost:4010/'))).reason).toBe('scheme');
  });

  it.each([
    '/_control/reset',
    '/_control',
    '/_CONTROL/reset',
    '//_control/reset',
    '/x/../_control/reset',
    '/x/%2e%2e/_control/reset',
    '/%5Fcontrol/reset',
    '/%255Fcontrol/reset',
    '/x/%252e%252e/_control/reset',
    '/shops/a/_control/faults',
    '\\_control\\reset',
    '/_control;x=1',
  ])('given an allowed origin with the control path %s / it is refused: a simulator\'s control path is never a merchant URL', async (path) => {
    const guard = createUrlGuard({ allowedOrigins: ['http://127.0.0.1:4010'] });
    expect((await refusal(guard.check(`http://127.0.0.1:4010${path}`))).reason).toBe('control_path');
  });

  it('given an allowed origin and paths that merely look alike / they pass', async () => {
    const guard = createUrlGuard({ allowedOrigins: ['http://127.0.0.1:4010'] });
    for (const path of ['/_controls/x', '/webhooks/_controlled', '/control/reset', '/x_control']) expect((await guard.check(`http://127.0.0.1:4010${path}`)).pathname).toBe(path);
  });
});

describe('URL guard: fetching', () => {
  const received: Array<{ path: string | undefined; authorization: string | undefined }> = [];
  /** /hang calls whose client gave up: the connection closed with nothing answered. */
  let abandonedHangs = 0;
  let servers: Server[] = [];
  let origin = '';
  let otherOrigin = '';

  function handle(req: IncomingMessage, res: ServerResponse) {
    received.push({ path: req.url, authorization: req.headers.authorization });
    const routes: Record<string, () => void> = {
      '/logo.png': () => res.writeHead(200, { 'content-type': 'image/png' }).end('PNGDATA'),
      '/moved': () => res.writeHead(301, { location: 'logo.png' }).end(),
      '/see-other': () => res.writeHead(302, { location: `${otherOrigin}/logo.png` }).end(),
      '/to-intranet': () => res.writeHead(302, { location: 'http://intranet.example.test/admin' }).end(),
      '/loop': () => res.writeHead(302, { location: '/loop' }).end(),
      '/to-control': () => res.writeHead(307, { location: '/_control/reset' }).end(),
      '/big': () => {
        res.writeHead(200); // chunked, no Content-Length: the cap must count while streaming
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(1024, 'x'));
        res.end();
      },
      '/big-declared': () => res.writeHead(200, { 'content-length': 65_536 }).end(Buffer.alloc(65_536)),
      '/hang': () => void res.on('close', () => (abandonedHangs += res.headersSent ? 0 : 1)),
    };
    (routes[req.url ?? ''] ?? (() => res.writeHead(404).end()))();
  }

  async function listen(): Promise<string> {
    const server = createServer(handle);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    [origin, otherOrigin] = await Promise.all([listen(), listen()]);
  });

  afterAll(async () => {
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    servers = [];
  });

  const guard = () =>
    createUrlGuard({ allowHttp: true, allowedOrigins: [origin, otherOrigin], resolve: fakeDns({ 'intranet.example.test': ['10.0.0.1'] }) });

  it('given an allowed origin / the body, status and final URL come back', async () => {
    const res = await guard().fetch(`${origin}/logo.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.body.toString()).toBe('PNGDATA');
    expect(res.finalUrl).toBe(`${origin}/logo.png`);
  });

  it('given a relative redirect to another path / it is followed', async () => {
    const res = await guard().fetch(`${origin}/moved`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('PNGDATA');
    expect(res.finalUrl).toBe(`${origin}/logo.png`);
  });

  it('given an allowed origin redirecting to its own control path / the redirect is refused and the control path never called', async () => {
    received.length = 0;
    expect((await refusal(guard().fetch(`${origin}/to-control`, { method: 'POST' }))).reason).toBe('control_path');
    expect(received.map((r) => r.path)).toEqual(['/to-control']);
  });

  it('given a redirect to a host that resolves to a private address / it is refused', async () => {
    const err = await refusal(guard().fetch(`${origin}/to-intranet`));
    expect(err.reason).toBe('private');
    expect(err.message).toBe('address 10.0.0.1 is in a private network');
  });

  it('given a redirect to another origin / the Authorization header is not carried along', async () => {
    received.length = 0;
    const res = await guard().fetch(`${origin}/see-other`, { headers: { Authorization: 'Bearer merchant-token' } });
    expect(res.finalUrl).toBe(`${otherOrigin}/logo.png`);
    expect(received).toEqual([
      { path: '/see-other', authorization: 'Bearer merchant-token' },
      { path: '/logo.png', authorization: undefined },
    ]);
  });

  it('given a redirect loop / it stops after maxRedirects', async () => {
    received.length = 0;
    const err = await refusal(guard().fetch(`${origin}/loop`, { maxRedirects: 2 }));
    expect(err.reason).toBe('too_many_redirects');
    expect(received).toHaveLength(3);
  });

  it.each(['/big', '/big-declared'])('given a body over maxBytes (%s) / it is refused as too_large', async (path) => {
    expect((await refusal(guard().fetch(`${origin}${path}`, { maxBytes: 10_000 }))).reason).toBe('too_large');
  });

  it('given a body within maxBytes / it is read whole', async () => {
    expect((await guard().fetch(`${origin}/big`, { maxBytes: 65_536 })).body).toHaveLength(65_536);
  });

  it('given a server that never answers / it gives up at the time-out and drops the connection', async () => {
    abandonedHangs = 0;
    const err = await refusal(guard().fetch(`${origin}/hang`, { timeoutMs: 200 }));
    expect(err.reason).toBe('timeout');
    // Given up, not left hanging: the server sees its connection closed (a moment after the refusal).
    await expect.poll(() => abandonedHangs, { timeout: 30_000, interval: 20 }).toBe(1);
  });

  it('given DNS that never answers / the same time-out applies', async () => {
    const stuck = createUrlGuard({ resolve: () => new Promise<string[]>(() => undefined) });
    expect((await refusal(stuck.fetch('https://slow-dns.example.com/', { timeoutMs: 100 }))).reason).toBe('timeout');
  });

  it('given a URL refused by check / nothing is fetched', async () => {
    received.length = 0;
    const err = await refusal(createUrlGuard().fetch(`${origin}/logo.png`));
    expect(err.reason).toBe('scheme');
    expect(received).toHaveLength(0);
  });
});
