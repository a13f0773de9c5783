// The DNS simulator on the wire (raw dns-packet queries over UDP and TCP) and its control API over HTTP.
import dgram from 'node:dgram';
import net, { type AddressInfo } from 'node:net';
import { RECURSION_DESIRED, decode, encode, type DecodedPacket, type Packet, type RecordType } from 'dns-packet';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDnsSimulator, type DnsSimulator } from './index.js';

let sim: DnsSimulator;
let control: string;
let port: number;

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];
const rcode = (p: DecodedPacket) => RCODES[(p.flags ?? 0) & 0xf];

function packet(name: string, type: RecordType, extra: Partial<Packet> = {}): Buffer {
  return encode({ type: 'query', id: Math.floor(Math.random() * 65_535), flags: RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }], ...extra });
}

async function udpQuery(message: Buffer, timeoutMs = 1_000): Promise<DecodedPacket | undefined> {
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      socket.once('message', (m) => {
        clearTimeout(timer);
        resolve(decode(m));
      });
      socket.send(message, port, '127.0.0.1', (err) => err && reject(err));
    });
  } finally {
    socket.close();
  }
}

async function tcpQuery(message: Buffer): Promise<DecodedPacket> {
  const conn = net.connect(port, '127.0.0.1');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  conn.write(Buffer.concat([length, message]));
  let data = Buffer.alloc(0);
  for await (const chunk of conn) {
    data = Buffer.concat([data, chunk as Buffer]);
    if (data.length >= 2 && data.length >= 2 + data.readUInt16BE(0)) break;
  }
  conn.destroy();
  return decode(data.subarray(2));
}

async function put(record: Record<string, unknown>) {
  const res = await fetch(`${control}/_control/records`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(record) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  sim = createDnsSimulator();
  await sim.app.listen({ port: 0, host: '127.0.0.1' });
  control = `http://127.0.0.1:${(sim.app.server.address() as AddressInfo).port}`;
  ({ port } = await sim.udp.start());
});
afterAll(() => sim.app.close());
beforeEach(() => sim.reset());

describe('answers on the wire', () => {
  beforeEach(async () => {
    await put({ name: 'checkout.shop.test', type: 'CNAME', value: 'acme.checkout.test' });
    await put({ name: 'acme.checkout.test', type: 'A', value: '10.1.2.3', ttl: 30 });
    await put({ name: '_checkout-verify.shop.test', type: 'TXT', value: 'token-1' });
  });

  it('given a CNAME, when its A is asked in another case, then the CNAME and its target A come back authoritatively', async () => {
    const res = await udpQuery(packet('CHECKOUT.Shop.test', 'A'));
    expect(res && rcode(res)).toBe('NOERROR');
    expect(res?.flag_aa).toBe(true);
    expect(res?.flag_rd).toBe(true);
    expect(res?.questions?.[0]?.name).toBe('CHECKOUT.Shop.test');
    expect(res?.answers?.map((a) => [a.name, a.type, 'data' in a ? a.data : undefined])).toEqual([
      ['CHECKOUT.Shop.test', 'CNAME', 'acme.checkout.test'],
      ['acme.checkout.test', 'A', '10.1.2.3'],
    ]);
    expect(res?.answers?.[1]).toMatchObject({ ttl: 30 });
  });

  it('given a CNAME, when the CNAME itself is asked, then only the CNAME comes back', async () => {
    const res = await udpQuery(packet('checkout.shop.test', 'CNAME'));
    expect(res?.answers).toMatchObject([{ type: 'CNAME', data: 'acme.checkout.test' }]);
  });

  it('given a name with a TXT only, when its A is asked, then NOERROR without answers and the zone SOA', async () => {
    const res = await udpQuery(packet('_checkout-verify.shop.test', 'A'));
    expect(res && rcode(res)).toBe('NOERROR');
    expect(res?.answers).toEqual([]);
    expect(res?.authorities).toMatchObject([{ type: 'SOA', name: 'shop.test', data: { mname: 'ns1.sandbox.test', minimum: 0 } }]);
  });

  it('given records below a name only, when that name is asked, then NOERROR (it exists), and an unknown name NXDOMAIN', async () => {
    expect(rcode((await udpQuery(packet('shop.test', 'A')))!)).toBe('NOERROR');
    expect(rcode((await udpQuery(packet('elsewhere.shop.test', 'TXT')))!)).toBe('NXDOMAIN');
  });

  it('given a zone apex, when its SOA is asked, then a synthesized SOA comes back', async () => {
    const res = await udpQuery(packet('shop.test', 'SOA'));
    expect(res?.answers).toMatchObject([{ type: 'SOA', name: 'shop.test' }]);
  });

  it('given a TXT set too large for 512 bytes, when asked over UDP then TCP, then UDP is truncated and TCP carries it whole', async () => {
    for (let i = 0; i < 3; i++) await put({ name: 'big.shop.test', type: 'TXT', value: `${i}`.repeat(300) });
    const udp = await udpQuery(packet('big.shop.test', 'TXT'));
    expect(udp?.flag_tc).toBe(true);
    expect(udp?.answers).toEqual([]);
    const tcp = await tcpQuery(packet('big.shop.test', 'TXT'));
    expect(tcp.flag_tc).toBe(false);
    expect(tcp.answers?.map((a) => ('data' in a && Array.isArray(a.data) ? a.data.map((c) => c.length) : []))).toEqual([
      [255, 45],
      [255, 45],
      [255, 45],
    ]);
  });

  it('given an EDNS query with a large buffer, when a mid-size answer is asked, then it comes over UDP with an OPT record', async () => {
    for (let i = 0; i < 2; i++) await put({ name: 'mid.shop.test', type: 'TXT', value: `${i}`.repeat(300) });
    const opt = { type: 'OPT' as const, name: '.', udpPayloadSize: 4096, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] };
    const res = await udpQuery(packet('mid.shop.test', 'TXT', { additionals: [opt] }));
    expect(res?.flag_tc).toBe(false);
    expect(res?.answers).toHaveLength(2);
    expect(res?.additionals).toMatchObject([{ type: 'OPT', udpPayloadSize: 1232 }]);
  });

  it('given a non-IN class or an unsupported opcode, when asked, then REFUSED or NOTIMP', async () => {
    const chaos = encode({ type: 'query', id: 1, questions: [{ name: 'version.bind', type: 'TXT', class: 'CH' }] });
    expect(rcode((await udpQuery(chaos))!)).toBe('REFUSED');
    const notify = encode({ type: 'query', id: 2, flags: 4 << 11, questions: [{ name: 'shop.test', type: 'SOA', class: 'IN' }] });
    expect(rcode((await udpQuery(notify))!)).toBe('NOTIMP');
  });
});

describe('faults on the wire', () => {
  beforeEach(() => put({ name: 'shop.test', type: 'A', value: '10.0.0.1' }));

  it('given an error rule for a name suffix and type, when matching and other queries arrive, then only the match gets SERVFAIL', async () => {
    sim.faults.add({ mode: 'error', match: 'SHOP.test', method: 'A' });
    expect(rcode((await udpQuery(packet('shop.test', 'TXT')))!)).toBe('NOERROR');
    expect(rcode((await udpQuery(packet('shop.test', 'A')))!)).toBe('SERVFAIL');
    expect(rcode((await udpQuery(packet('shop.test', 'A')))!)).toBe('NOERROR');
  });

  it('given a timeout rule, when the query arrives, then it is dropped; given a slow rule, then it answers late', async () => {
    sim.faults.add({ mode: 'timeout', match: 'shop.test' });
    expect(await udpQuery(packet('shop.test', 'A'), 300)).toBeUndefined();
    sim.faults.add({ mode: 'slow', delayMs: 300, match: 'shop.test' });
    const started = Date.now();
    const res = await udpQuery(packet('shop.test', 'A'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(res?.answers).toMatchObject([{ data: '10.0.0.1' }]);
  });
});

describe('control API', () => {
  it('given records put twice and of several values, when listed, then identical ones are refreshed not duplicated', async () => {
    expect((await put({ name: 'Shop.Test.', type: 'txt', value: 'a' })).status).toBe(201);
    expect((await put({ name: 'shop.test', type: 'TXT', value: 'b' })).status).toBe(201);
    const again = await put({ name: 'shop.test', type: 'TXT', value: 'a', ttl: 5 });
    expect(again).toMatchObject({ status: 200, body: { created: false, record: { ttl: 5 } } });
    const list = (await (await fetch(`${control}/_control/records?name=SHOP.test&type=txt`)).json()) as { records: unknown[] };
    expect(list.records).toEqual([
      { name: 'shop.test', type: 'TXT', value: 'a', ttl: 5 },
      { name: 'shop.test', type: 'TXT', value: 'b', ttl: 60 },
    ]);
  });

  it('given a CNAME, when it is put again, then it replaces the old target; other data at its name is a 409', async () => {
    await put({ name: 'www.shop.test', type: 'CNAME', value: 'old.test' });
    expect((await put({ name: 'www.shop.test', type: 'CNAME', value: 'new.test' })).status).toBe(200);
    expect(sim.records.list({ name: 'www.shop.test' })).toMatchObject([{ type: 'CNAME', value: 'new.test' }]);
    expect(await put({ name: 'www.shop.test', type: 'TXT', value: 'x' })).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    await put({ name: 'api.shop.test', type: 'A', value: '10.0.0.2' });
    expect((await put({ name: 'api.shop.test', type: 'CNAME', value: 'x.test' })).status).toBe(409);
  });

  it.each([
    [{ name: 'shop.test', type: 'A', value: 'not-an-ip' }],
    [{ name: 'shop.test', type: 'AAAA', value: '10.0.0.1' }],
    [{ name: 'shop.test', type: 'MX', value: 'mail.shop.test' }],
    [{ name: 'bad name.test', type: 'TXT', value: 'x' }],
    [{ name: 'shop.test', type: 'CNAME', value: 'a..b' }],
    [{ name: 'shop.test', type: 'TXT', value: 'x', ttl: -1 }],
    [{ type: 'TXT', value: 'x' }],
  ])('given the invalid record %j, when put, then 400', async (record) => {
    expect(await put(record)).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
  });

  it('given records, when deleting by name/type/value, then only those go, and deleting nothing is a 404', async () => {
    await put({ name: 'shop.test', type: 'TXT', value: 'a' });
    await put({ name: 'shop.test', type: 'TXT', value: 'b' });
    await put({ name: 'shop.test', type: 'A', value: '10.0.0.1' });
    const del = (q: string) => fetch(`${control}/_control/records?${q}`, { method: 'DELETE' });
    expect(await (await del('name=shop.test&type=TXT&value=a')).json()).toEqual({ removed: 1 });
    expect(await (await del('name=shop.test&type=txt')).json()).toEqual({ removed: 1 });
    expect((await del('name=shop.test&type=TXT')).status).toBe(404);
    expect((await del('type=A')).status).toBe(400);
    expect(await (await del('name=SHOP.test')).json()).toEqual({ removed: 1 });
  });

  it('given records, when reset, then they are gone and the name is NXDOMAIN', async () => {
    await put({ name: 'shop.test', type: 'A', value: '10.0.0.1' });
    await fetch(`${control}/_control/reset`, { method: 'POST' });
    expect(sim.records.list()).toEqual([]);
    expect(rcode((await udpQuery(packet('shop.test', 'A')))!)).toBe('NXDOMAIN');
  });
});
