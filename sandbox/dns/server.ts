// The wire side of the DNS simulator: decodes each query with dns-packet, consults the shared fault rules
// (error → SERVFAIL, timeout → no answer, slow → answer late), and answers authoritatively from the store.
import dgram from 'node:dgram';
import net, { isIPv6 } from 'node:net';
import {
  AUTHORITATIVE_ANSWER,
  RECURSION_DESIRED,
  TRUNCATED_RESPONSE,
  decode,
  encode,
  encodingLength,
  type Answer,
  type DecodedPacket,
  type OptAnswer,
  type Packet,
} from 'dns-packet';
import type { FastifyBaseLogger } from 'fastify';
import type { FaultInjector } from '../shared/faults.js';
import type { DnsRecord, RecordStore } from './records.js';

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
type Rcode = keyof typeof RCODE;
const CLASSIC_UDP_LIMIT = 512;
const OUR_UDP_LIMIT = 1232; // the EDNS buffer size recommended by DNS Flag Day 2020
const SOA = { mname: 'ns1.sandbox.test', rname: 'hostmaster.sandbox.test', refresh: 3600, retry: 600, expire: 86_400 };

export interface DnsServer {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
  readonly port: number | undefined;
}

/** TXT strings are at most 255 bytes each: longer values go out as several strings, split on character boundaries. */
export function txtChunks(value: string): string[] {
  const chunks: string[] = [];
  let chunk = '';
  for (const char of value) {
    if (Buffer.byteLength(chunk + char) > 255) {
      chunks.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  chunks.push(chunk);
  return chunks;
}

function toAnswer(r: DnsRecord, owner: string): Answer {
  const base = { name: owner, ttl: r.ttl, class: 'IN' as const };
  return r.type === 'TXT' ? { ...base, type: 'TXT', data: txtChunks(r.value) } : { ...base, type: r.type, data: r.value };
}

/** The sandbox treats the last two labels of a name as its zone apex. */
const zoneOf = (name: string) => name.split('.').slice(-2).join('.');

function soaFor(name: string, serial: number): Answer {
  const zone = zoneOf(name);
  // minimum 0: resolvers must not cache the absence of a record, so records added later show up at once.
  return { type: 'SOA', name: zone, ttl: 0, class: 'IN', data: { ...SOA, serial, minimum: 0 } };
}

function rcodeFor(query: DecodedPacket): Rcode {
  const question = query.questions?.[0];
  if (!question || query.questions?.length !== 1) return 'FORMERR';
  if (((query.flags ?? 0) >> 11) & 0xf) return 'NOTIMP'; // only opcode 0, QUERY
  if (question.class && question.class !== 'IN') return 'REFUSED';
  return 'NOERROR';
}

export function answerQuery(query: DecodedPacket, store: RecordStore, forced?: Rcode): Packet {
  const question = query.questions?.[0];
  const opt = query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
  const reply = (rcode: Rcode, answers: Answer[] = [], authorities: Answer[] = []): Packet => ({
    id: query.id,
    type: 'response',
    flags: AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & RECURSION_DESIRED) | RCODE[rcode],
    questions: question ? [question] : [],
    answers,
    authorities,
    additionals: opt ? [{ type: 'OPT', name: '.', udpPayloadSize: OUR_UDP_LIMIT, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] : [],
  });
  const rcode = forced ?? rcodeFor(query);
  if (rcode !== 'NOERROR' || !question) return reply(rcode);

  const name = question.name.toLowerCase();
  const found = store.lookup(name, question.type);
  // The first owner name echoes the question as asked (resolvers compare it); chased names are the stored ones.
  const answers = found.answers.map((r, i) => toAnswer(r, i === 0 ? question.name : r.name));
  if (question.type === 'SOA' && found.exists && name === zoneOf(name)) answers.push({ ...soaFor(name, store.serial), name: question.name });
  return reply(found.exists ? 'NOERROR' : 'NXDOMAIN', answers, answers.length ? [] : [soaFor(name, store.serial)]);
}

/** Encodes for the transport: over UDP within the client's limit (an answer that does not fit goes out empty
 * with TC set, and the client retries over TCP), over TCP whole. */
function encodeFor(transport: 'udp' | 'tcp', response: Packet, query: DecodedPacket): Buffer {
  const opt = query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
  const limit = transport === 'tcp' ? 65_535 : opt ? Math.min(Math.max(opt.udpPayloadSize, CLASSIC_UDP_LIMIT), OUR_UDP_LIMIT) : CLASSIC_UDP_LIMIT;
  if (encodingLength(response) <= limit) return encode(response);
  return encode({ ...response, flags: (response.flags ?? 0) | TRUNCATED_RESPONSE, answers: [], authorities: [] });
}

/**
 * Serves DNS on one port over UDP and TCP (TCP carries the answers too large for a UDP datagram, which is
 * how resolvers fetch long TXT sets after a truncated UDP answer).
 */
export function createDnsServer(opts: { port: number; host: string; store: RecordStore; faults: FaultInjector; log: FastifyBaseLogger }): DnsServer {
  let udp: dgram.Socket | undefined;
  let tcp: net.Server | undefined;
  let generation = 0;
  const pending = new Set<NodeJS.Timeout>();
  const connections = new Set<net.Socket>();

  /** The wire answer to one query, or undefined when there is none to give (not DNS, or a 'timeout' fault). */
  async function respond(message: Buffer, transport: 'udp' | 'tcp'): Promise<Buffer | undefined> {
    let query: DecodedPacket;
    try {
      query = decode(message);
    } catch {
      return undefined; // not DNS: there is no id to answer to
    }
    if (query.type !== 'query') return undefined;
    const question = query.questions?.[0];
    const name = question?.name.toLowerCase() ?? '';
    const rule = question ? opts.faults.take(question.type, name, (target, match) => target.endsWith(match.toLowerCase().replace(/\.$/, ''))) : undefined;
    if (rule?.mode === 'timeout') {
      opts.log.debug({ name, type: question?.type, fault: rule.id }, 'dns query dropped by fault');
      return undefined;
    }
    if (rule?.mode === 'slow') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(timer);
          resolve();
        }, rule.delayMs);
        pending.add(timer);
      });
    }
    const response = answerQuery(query, opts.store, rule?.mode === 'error' ? 'SERVFAIL' : undefined);
    opts.log.debug({ name, type: question?.type, transport, rcode: (response.flags ?? 0) & 0xf, answers: response.answers?.length }, 'dns query');
    return encodeFor(transport, response, query);
  }

  const fail = (err: unknown) => opts.log.error({ err }, 'dns query failed');

  function serveTcp(conn: net.Socket, current: number): void {
    connections.add(conn);
    conn.on('close', () => connections.delete(conn));
    conn.on('error', () => conn.destroy());
    let buffered = Buffer.alloc(0);
    conn.on('data', (data) => {
      buffered = Buffer.concat([buffered, data]);
      // Each message is framed by a two-byte length (RFC 1035 §4.2.2).
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        respond(message, 'tcp')
          .then((answer) => {
            if (!answer || generation !== current || conn.destroyed) return;
            const length = Buffer.alloc(2);
            length.writeUInt16BE(answer.length);
            conn.write(Buffer.concat([length, answer]));
          })
          .catch(fail);
      }
    });
  }

  async function bind(port: number): Promise<{ socket: dgram.Socket; server: net.Server }> {
    const socket = dgram.createSocket(isIPv6(opts.host) ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, opts.host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const server = net.createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socket.address().port, opts.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      socket.close();
      throw err;
    }
    return { socket, server };
  }

  return {
    get port() {
      return udp ? udp.address().port : undefined;
    },
    async start() {
      if (udp) return { port: udp.address().port };
      // With port 0 the UDP port is picked first; its TCP twin may be taken, so pick again a few times.
      let bound: Awaited<ReturnType<typeof bind>> | undefined;
      for (let attempt = 1; !bound; attempt++) {
        try {
          bound = await bind(opts.port);
        } catch (err) {
          if (opts.port !== 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw err;
        }
      }
      const current = ++generation;
      const { socket, server } = bound;
      socket.on('message', (message, from) => {
        respond(message, 'udp')
          .then((answer) => {
            if (answer && generation === current) socket.send(answer, from.port, from.address);
          })
          .catch(fail);
      });
      socket.on('error', (err) => opts.log.error({ err }, 'dns udp socket error'));
      server.on('connection', (conn) => serveTcp(conn, current));
      udp = socket;
      tcp = server;
      return { port: socket.address().port };
    },
    async stop() {
      generation++;
      const [socket, server] = [udp, tcp];
      udp = undefined;
      tcp = undefined;
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      for (const conn of connections) conn.destroy();
      await Promise.all([
        socket && new Promise<void>((resolve) => socket.close(() => resolve())),
        server && new Promise<void>((resolve) => server.close(() => resolve())),
      ]);
    },
  };
}
