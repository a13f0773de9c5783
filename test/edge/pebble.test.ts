// HTTPS for every checkout origin, proven against a real ACME server: Let's Encrypt's Pebble (with its challenge
// test DNS server answering every name with 127.0.0.1), the TLS edge (Caddy, on-demand TLS, the Caddyfile of
// scripts/lib/tls-edge.ts) in front of the service's API, which it asks (GET /internal/tls/allow?domain=) before any
// order. Pebble validates each order's challenge against the edge itself (its HTTP-01 and TLS-ALPN-01 ports are the
// edge's), so a certificate here went through the whole ACME flow. ACME orders are counted from Pebble's own log
// ("Added order …"), per step.
// Tools: Caddy and Pebble are built once into ~/.cache/checkout-service by `npm run provision` (the `pretest` step);
// a machine where they cannot be built fails this file with the reason, it never skips it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsSimulator } from '../../sandbox/dns/index.js';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { api, startPayment, storefrontACheckout, storefrontAMerchant, type Merchant } from '../e2e/checkout-helpers.js';
import { ensureWebBuild } from '../../scripts/web-build.js';
import { freeLowPort, untilAccepting } from '../../scripts/lib/ports.js';
import { ensureCaddy, ensurePebble, type PebbleBinaries } from '../../scripts/lib/tls-binaries.js';
import { edgeCaddyfile } from '../../scripts/lib/tls-edge.js';
import { mayHoldCertificate, TLS_PERMISSION_PATH } from '../../api/routes/internal/tls-permission.js';

const DOMAIN = 'checkout.shop.test';
// A service domain shaped like production's (a public CA never issues for names under localhost, which tests use elsewhere).
const SERVICE_DOMAIN = 'pay.test';
const work = mkdtempSync(path.join(os.tmpdir(), 'edge-pebble-'));
const storageDir = path.join(work, 'certificates');

const dns = createDnsSimulator();
let dnsControlUrl: string;
let stack: TestStack;
let bins: PebbleBinaries;
let caddyPath: string;
const ports = new Set<number>();
let edge: { http: number; https: number; ask: number };
let pebblePorts: { acme: number; management: number; dns: number; dnsManagement: number };

/** A child process with its output kept (Pebble's log is where orders are counted). */
interface Child { proc: ChildProcess; output: () => string; stop: () => Promise<void> }
const children: Child[] = [];

function startChild(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const child: Child = {
    proc,
    output: () => out,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
  children.push(child);
  return child;
}

let pebble: Child;
let challtestsrv: Child;
let caddy: Child;
let pebbleRoot: string;

/**
 * Between the edge's ask site and the API: passes the permission question on, or (`down`) answers 503 as a failing API
 * would, so a test can take the permission endpoint away without stopping the API that serves the pages.
 */
const askRelay = { port: 0, down: false, server: undefined as http.Server | undefined };

/** ACME orders Pebble has accepted so far (one log line each). */
const orders = () => pebble.output().split('\n').filter((l) => l.includes('Added order')).length;

function writeCaddyfile(): string {
  const file = path.join(work, 'Caddyfile');
  writeFileSync(file, edgeCaddyfile({
    httpPort: edge.http,
    httpsPort: edge.https,
    storageDir,
    upstreams: [new URL(stack.apiUrl).host],
    askPort: edge.ask,
    askUpstreams: [`127.0.0.1:${askRelay.port}`],
    ca: { acmeDirectory: `https://localhost:${pebblePorts.acme}/dir`, rootCertFile: bins.listenerRoot },
    email: 'ops@checkout.test',
  }));
  return file;
}

async function startCaddy(): Promise<Child> {
  // HOME and XDG_* inside the test's folder: Caddy writes nothing of its own anywhere else.
  const child = startChild(caddyPath, ['run', '--config', writeCaddyfile(), '--adapter', 'caddyfile'], { HOME: work, XDG_DATA_HOME: path.join(work, 'data'), XDG_CONFIG_HOME: path.join(work, 'config') });
  await untilAccepting(edge.https, child.proc, 20_000).catch((err: Error) => {
    throw new Error(`caddy ${err.message}\n${child.output().slice(-3000)}`);
  });
  return child;
}

/** One TLS handshake for `servername` at the edge: the certificate it got, or the error. */
function handshake(servername: string, ca = pebbleRoot): Promise<{ ok: true; cert: tls.PeerCertificate; authorized: boolean } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: edge.https, servername, ca, rejectUnauthorized: false, timeout: 30_000 });
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate(true);
      resolve({ ok: true, cert, authorized: socket.authorized });
      socket.end();
    });
    socket.once('error', (err) => resolve({ ok: false, error: err.message }));
    socket.once('timeout', () => (socket.destroy(), resolve({ ok: false, error: 'timeout' })));
  });
}

/** GET over https through the edge, the name sent as SNI and Host, the certificate checked against `ca` only. */
function httpsGet(host: string, urlPath: string, ca = pebbleRoot): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: edge.https, servername: host, path: urlPath, ca, headers: { host: `${host}:${edge.https}`, accept: 'text/html' }, agent: false, timeout: 30_000 }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.once('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  // Provisioning first: a missing tool fails here, loudly (npm test's pretest step has built them already).
  [caddyPath, bins] = await Promise.all([ensureCaddy(), ensurePebble()]);
  const { port: dnsPort } = await dns.udp.start();
  dnsControlUrl = await dns.app.listen({ port: 0, host: '127.0.0.1' });
  edge = { http: await freeLowPort(ports), https: await freeLowPort(ports), ask: await freeLowPort(ports) };
  pebblePorts = { acme: await freeLowPort(ports), management: await freeLowPort(ports), dns: await freeLowPort(ports), dnsManagement: await freeLowPort(ports) };
  // The service believes it is served on https at the edge's port (checkout URLs, the processor's return URL); it
  // trusts X-Forwarded-* from the edge (loopback) only.
  [stack] = await Promise.all([
    startTestStack({ DNS_SERVERS: `127.0.0.1:${dnsPort}`, SERVICE_DOMAIN, PUBLIC_HTTPS: 'true', API_PORT: String(edge.https), TRUST_PROXY: '127.0.0.1' }),
    ensureWebBuild({ targets: ['checkout'] }),
  ]);

  // The challenge test server: only its DNS (every A query → 127.0.0.1, no AAAA), which Pebble's validation uses.
  challtestsrv = startChild(bins.challtestsrv, ['-defaultIPv4', '127.0.0.1', '-defaultIPv6', '', '-dnsserver', `127.0.0.1:${pebblePorts.dns}`, '-http01', '', '-https01', '', '-tlsalpn01', '', '-doh', '', '-management', `127.0.0.1:${pebblePorts.dnsManagement}`]);
  const pebbleConfig = path.join(work, 'pebble.json');
  writeFileSync(pebbleConfig, JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${pebblePorts.acme}`,
      managementListenAddress: `127.0.0.1:${pebblePorts.management}`,
      certificate: bins.listenerCert,
      privateKey: bins.listenerKey,
      // Challenges are validated against the edge's own ports.
      httpPort: edge.http,
      tlsPort: edge.https,
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
      retryAfter: { authz: 1, order: 1 },
      keyAlgorithm: 'ecdsa',
      profiles: { default: { description: 'default', validityPeriod: 7776000 } },
    },
  }));
  // No artificial validation delays and no rejected nonces: the test measures our path, not Pebble's chaos settings.
  pebble = startChild(bins.pebble, ['-config', pebbleConfig, '-dnsserver', `127.0.0.1:${pebblePorts.dns}`], { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' });
  await Promise.all([untilAccepting(pebblePorts.acme, pebble.proc, 20_000), untilAccepting(pebblePorts.dnsManagement, challtestsrv.proc, 20_000)]);
  // Pebble makes a new root at each start: the one certificates must chain to.
  pebbleRoot = await new Promise<string>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port: pebblePorts.management, path: '/roots/0', servername: 'localhost', ca: readFile(bins.listenerRoot) }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`roots/0: ${res.statusCode}`))));
    }).once('error', reject);
  });
  askRelay.server = http.createServer((req, res) => {
    if (askRelay.down) return res.writeHead(503).end();
    const upstream = http.request(`${stack.apiUrl}${req.url}`, { method: 'GET', agent: false }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.once('error', () => res.writeHead(502).end());
    upstream.end();
  });
  askRelay.port = await freeLowPort(ports);
  await new Promise<void>((resolve) => askRelay.server!.listen(askRelay.port, '127.0.0.1', resolve));
  caddy = await startCaddy();
});

afterAll(async () => {
  for (const child of children.reverse()) await child.stop();
  askRelay.server?.close();
  await stack?.close();
  await dns.app.close();
  rmSync(work, { recursive: true, force: true });
});

const readFile = (p: string) => readFileSync(p, 'utf8');

describe('HTTPS at the edge, certificates from a real ACME server (Pebble)', () => {
  let merchant: Merchant & { shop: Awaited<ReturnType<typeof storefrontAMerchant>>['shop'] };
  let serial: string;

  it(`given a merchant who verifies ${DOMAIN} / the first HTTPS request there gets a certificate chaining to Pebble's root and the merchant's branded checkout page, after one ACME order`, async () => {
    merchant = await storefrontAMerchant(stack, 'Shop Test Goods');
    const branded = await api(stack, 'PATCH', '/api/merchant/config', { branding: { primaryColor: '#0b6e4f', accentColor: '#08543c' } }, merchant.token);
    expect(branded.status, JSON.stringify(branded.body)).toBe(200);
    const slug = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body.slug as string;
    const before = orders();

    // A shopper's checkout, opened once the domain is live.
    const token = await storefrontACheckout(stack, merchant.shop);
    const claimed = await api(stack, 'POST', '/api/merchant/domain', { domain: DOMAIN }, merchant.token);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);

    // The merchant publishes the CNAME; our DNS verification (the custom-domain workflow) passes.
    const published = await fetch(`${dnsControlUrl}/_control/records`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: DOMAIN, type: 'CNAME', value: `${slug}.${SERVICE_DOMAIN}` }) });
    expect(published.status).toBe(201);
    const verified = await api(stack, 'POST', '/api/merchant/domain/verify', undefined, merchant.token);
    expect(verified.body).toMatchObject({ status: 'verified', verifiedBy: 'cname', checkoutOrigin: `https://${DOMAIN}:${edge.https}` });
    const verifiedAt = Date.now();

    const page = await httpsGet(DOMAIN, `/checkout/${token}`);
    const firstAnswerMs = Date.now() - verifiedAt;
    expect(page.status, page.text.slice(0, 500)).toBe(200);
    expect(page.text).toContain('Shop Test Goods');
    expect(page.text).toContain('--primary:#0b6e4f');

    const shake = await handshake(DOMAIN);
    expect(shake.ok).toBe(true);
    if (!shake.ok) return;
    // Chains to Pebble's root of this run (node verified it against that root alone).
    expect(shake.authorized).toBe(true);
    expect(shake.cert.subjectaltname).toBe(`DNS:${DOMAIN}`);
    serial = shake.cert.serialNumber;
    expect(orders() - before).toBe(1);

    // New checkout links and the processor's return URL are on https at the custom domain.
    const next = await storefrontACheckout(stack, merchant.shop);
    expect((await api(stack, 'GET', `/api/merchant/me`, undefined, merchant.token)).body.checkoutOrigin).toBe(`https://${DOMAIN}:${edge.https}`);
    await startPayment(stack, next);
    const configuration = [...stack.sims.processor.store.checkouts.values()].find((c) => c.metadata?.checkout_session_token === next);
    expect(configuration?.redirect_url).toMatch(new RegExp(`^https://${DOMAIN.replaceAll('.', '\\.')}:${edge.https}/checkout/${next}`));
    console.log(`[edge] DNS verification → first HTTPS answer on ${DOMAIN}: ${firstAnswerMs} ms; ACME orders: ${orders() - before}`);
  });

  it('given names nobody verified / a pending claim and 20 random names get no certificate (the handshake fails) and place no ACME order', async () => {
    const other = await storefrontAMerchant(stack, 'Pending Domains');
    const pending = `checkout.pending-${randomBytes(3).toString('hex')}.test`;
    expect((await api(stack, 'POST', '/api/merchant/domain', { domain: pending }, other.token)).status).toBe(201);
    const before = orders();
    const probes = [
      pending,
      ...Array.from({ length: 20 }, (_, i) => {
        const r = randomBytes(5).toString('hex');
        // Random custom domains, random subdomains of the service domain (no such merchant), random anything.
        return [`checkout.${r}.test`, `${r}.${SERVICE_DOMAIN}`, `${r}.example.com`, `www.${r}.shop.test`][i % 4]!;
      }),
    ];
    const results = await Promise.all(probes.map((name) => handshake(name)));
    expect(results.filter((r) => r.ok)).toEqual([]);
    expect(orders() - before).toBe(0);
    console.log(`[edge] ${probes.length} handshakes for unverified or random names: 0 certificates, ACME orders: ${orders() - before}`);
  });

  it('given the edge / plain http redirects to https, and the permission endpoint is not served to the outside', async () => {
    const redirect = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get({ host: '127.0.0.1', port: edge.http, path: '/checkout/abc?x=1', headers: { host: DOMAIN }, agent: false }, (res) => (res.resume(), resolve(res))).once('error', reject));
    expect(redirect.statusCode).toBe(308);
    expect(redirect.headers.location).toBe(`https://${DOMAIN}:${edge.https}/checkout/abc?x=1`);
    const internal = await httpsGet(DOMAIN, `${TLS_PERMISSION_PATH}?domain=${DOMAIN}`);
    expect(internal.status).toBe(404);
  });

  it('given the permission endpoint fails / names the edge holds keep their TLS, a merchant subdomain gets no certificate and no order until it answers again, then gets one', async () => {
    const m = await storefrontAMerchant(stack, 'Subdomain Shop');
    const subdomain = `${(await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body.slug as string}.${SERVICE_DOMAIN}`;
    const before = orders();
    askRelay.down = true;
    try {
      const held = await handshake(DOMAIN);
      expect(held.ok && held.authorized).toBe(true);
      // Fail closed: an allowed name, but nobody said so.
      expect((await handshake(subdomain)).ok).toBe(false);
      expect(orders()).toBe(before);
    } finally {
      askRelay.down = false;
    }
    const page = await httpsGet(subdomain, '/health');
    expect(page.status).toBe(200);
    const issued = await handshake(subdomain);
    expect(issued.ok && issued.authorized && issued.cert.subjectaltname).toBe(`DNS:${subdomain}`);
    expect(orders() - before).toBe(1);
  });

  it('given the edge restarts with its certificate storage and the CA is gone / it serves the same certificate without asking the CA', async () => {
    const before = orders();
    await caddy.stop();
    await pebble.stop();
    caddy = await startCaddy();
    const shake = await handshake(DOMAIN);
    expect(shake.ok, shake.ok ? '' : `${shake.error}\n${caddy.output().slice(-2000)}`).toBe(true);
    if (!shake.ok) return;
    expect(shake.authorized).toBe(true);
    expect(shake.cert.serialNumber).toBe(serial);
    expect(orders()).toBe(before);
    const page = await httpsGet(DOMAIN, '/health');
    expect(page.status).toBe(200);
  });
});

describe('the permission endpoint the edge asks (GET /internal/tls/allow?domain=)', () => {
  const ask = (domain: string, opts: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
    stack.app.inject({ method: 'GET', url: `${TLS_PERMISSION_PATH}?domain=${encodeURIComponent(domain)}`, remoteAddress: opts.remoteAddress ?? '127.0.0.1', headers: opts.headers });

  it('given the edge on loopback / it allows a verified custom domain, an existing merchant subdomain and the service\'s own hosts, and refuses the rest with 403', async () => {
    const m = await storefrontAMerchant(stack, 'Asked Names');
    const slug = (await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body.slug as string;
    expect((await ask(`${slug}.${SERVICE_DOMAIN}`)).statusCode).toBe(200);
    expect((await ask(`${slug.toUpperCase()}.${SERVICE_DOMAIN.toUpperCase()}.`)).statusCode).toBe(200);
    // The service domain itself; an IP address (the test's APP_ORIGIN is 127.0.0.1) never gets an on-demand certificate.
    expect((await ask(stack.config.serviceDomain)).statusCode).toBe(200);
    expect((await ask(new URL(stack.config.appOrigin).hostname)).statusCode).toBe(403);
    const refused = await ask(`no-such-merchant-${randomBytes(3).toString('hex')}.${SERVICE_DOMAIN}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect((await ask(`a.b.${slug}.${SERVICE_DOMAIN}`)).statusCode).toBe(403);
    expect((await ask('checkout.never-claimed.test')).statusCode).toBe(403);
    expect((await ask('not a host')).statusCode).toBe(403);
  });

  it('given a caller that is not the edge, or a request that came through a proxy / it answers 403 before any lookup', async () => {
    const m = await storefrontAMerchant(stack, 'Outside Callers');
    const host = `${(await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body.slug as string}.${SERVICE_DOMAIN}`;
    expect((await ask(host, { remoteAddress: '203.0.113.9' })).statusCode).toBe(403);
    expect((await ask(host, { headers: { 'x-forwarded-for': '203.0.113.9' } })).statusCode).toBe(403);
    expect((await ask(host, { headers: { forwarded: 'for=203.0.113.9' } })).statusCode).toBe(403);
  });

  it('given a verified domain that the merchant removes / the uncached rule refuses it at once (the endpoint within its 60 s freshness)', async () => {
    const m = await storefrontAMerchant(stack, 'Removed Domain');
    const slug = (await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body.slug as string;
    const name = `checkout.removed-${randomBytes(3).toString('hex')}.test`;
    expect((await api(stack, 'POST', '/api/merchant/domain', { domain: name }, m.token)).status).toBe(201);
    expect(await mayHoldCertificate(stack.db, stack.config, name)).toBe(false);
    await fetch(`${dnsControlUrl}/_control/records`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, type: 'CNAME', value: `${slug}.${SERVICE_DOMAIN}` }) });
    expect((await api(stack, 'POST', '/api/merchant/domain/verify', undefined, m.token)).body).toMatchObject({ status: 'verified' });
    expect(await mayHoldCertificate(stack.db, stack.config, name)).toBe(true);
    const removed = await stack.app.inject({ method: 'DELETE', url: '/api/merchant/domain', headers: { authorization: `Bearer ${m.token}` } });
    expect(removed.statusCode).toBeLessThan(300);
    expect(await mayHoldCertificate(stack.db, stack.config, name)).toBe(false);
  });
});
