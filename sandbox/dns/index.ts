// DNS simulator: a real authoritative DNS server on UDP and TCP (A, AAAA, CNAME, TXT, NS; SOA synthesized per zone)
// whose records are managed over the HTTP control API, so tests and demos can publish the CNAME/TXT records a
// merchant would add at their DNS provider. The shared fault rules apply to UDP queries:
// `match` is a suffix of the query name, `method` the record type.
//   GET    /_control/records?name=&type=        → { records }
//   PUT    /_control/records {name,type,value,ttl?} → adds (201) or refreshes an identical record (200)
//   DELETE /_control/records?name=&type=&value= → removes the matching records
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';
import { RecordError, createRecordStore, recordInputSchema, type RecordStore } from './records.js';
import { createDnsServer, type DnsServer } from './server.js';

export type { DnsRecord, RecordInput } from './records.js';

export interface DnsSimulatorOptions extends SimulatorOptions {
  /** Port for DNS queries (UDP, and TCP on the same number); 0 picks a free one (`udp.start()` answers it). Default 0. */
  udpPort?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
}

export interface DnsSimulator extends Simulator {
  /** The DNS server itself: UDP, plus TCP on the same port for answers too large for a datagram. */
  udp: DnsServer;
  records: RecordStore;
}

const removeQuery = z.object({ name: z.string().min(1), type: z.string().optional(), value: z.string().optional() });
const listQuery = z.object({ name: z.string().optional(), type: z.string().optional() });

export function createDnsSimulator(opts: DnsSimulatorOptions = {}): DnsSimulator {
  const sim = createSimulator('dns', { logger: opts.logger });
  const records = createRecordStore();
  const udp = createDnsServer({ port: opts.udpPort ?? 0, host: opts.host ?? '127.0.0.1', store: records, faults: sim.faults, log: sim.app.log });
  sim.onReset(() => records.clear());

  const invalid = (reply: FastifyReply, error: string) => reply.code(400).send({ error, code: 'INVALID_INPUT' });
  const issues = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
  /** Runs a store operation, answering its RecordError as 400 (invalid) or 409 (CNAME conflict). */
  async function guarded(reply: FastifyReply, run: () => unknown) {
    try {
      return await run();
    } catch (err) {
      if (err instanceof RecordError) return reply.code(err.code === 'CONFLICT' ? 409 : 400).send({ error: err.message, code: err.code });
      throw err;
    }
  }

  sim.app.get('/_control/records', async (request, reply) => {
    const query = listQuery.safeParse(request.query);
    if (!query.success) return invalid(reply, issues(query.error));
    return guarded(reply, () => ({ records: records.list(query.data) }));
  });

  sim.app.put('/_control/records', async (request, reply) => {
    const body = recordInputSchema.safeParse(request.body ?? {});
    if (!body.success) return invalid(reply, issues(body.error));
    return guarded(reply, () => {
      const { record, created } = records.add(body.data);
      return reply.code(created ? 201 : 200).send({ record, created });
    });
  });

  sim.app.delete('/_control/records', async (request, reply) => {
    const query = removeQuery.safeParse(request.query);
    if (!query.success) return invalid(reply, issues(query.error));
    return guarded(reply, () => {
      const removed = records.remove(query.data);
      return removed ? { removed } : reply.code(404).send({ error: 'no matching record', code: 'NOT_FOUND' });
    });
  });

  sim.app.addHook('onClose', async () => udp.stop());
  return Object.assign(sim, { udp, records });
}
