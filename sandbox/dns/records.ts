// The DNS simulator's record store and its lookup rules: names are case-insensitive, a name may hold many
// records of a type (several TXT values, several A addresses), a CNAME stands alone at its name (RFC 1034
// §3.6.2), and lookups of another type follow CNAMEs the way an authoritative server does.
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'NS'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
export const DEFAULT_TTL = 60;
const MAX_CNAME_HOPS = 8;
const MAX_TXT_BYTES = 4000;

export interface DnsRecord {
  name: string;
  type: RecordType;
  value: string;
  ttl: number;
}

export class RecordError extends Error {
  constructor(
    readonly code: 'INVALID_INPUT' | 'CONFLICT',
    message: string,
  ) {
    super(message);
  }
}

const LABEL = /^[a-z0-9_-]{1,63}$/;

/** Lower-case, without the trailing dot; throws on names DNS cannot carry. */
export function normalizeName(name: string): string {
  const n = name.trim().toLowerCase().replace(/\.$/, '');
  if (!n || n.length > 253 || !n.split('.').every((label) => LABEL.test(label))) throw new RecordError('INVALID_INPUT', `'${name}' is not a valid domain name`);
  return n;
}

export const recordInputSchema = z.object({
  name: z.string().min(1),
  type: z
    .string()
    .transform((t) => t.toUpperCase())
    .pipe(z.enum(RECORD_TYPES)),
  value: z.string(),
  ttl: z.number().int().min(0).max(604_800).default(DEFAULT_TTL),
});
export type RecordInput = z.input<typeof recordInputSchema>;

function normalizeValue(type: RecordType, value: string): string {
  switch (type) {
    case 'A':
      if (!isIPv4(value)) throw new RecordError('INVALID_INPUT', `'${value}' is not an IPv4 address`);
      return value;
    case 'AAAA':
      if (!isIPv6(value)) throw new RecordError('INVALID_INPUT', `'${value}' is not an IPv6 address`);
      return value.toLowerCase();
    case 'CNAME':
    case 'NS':
      return normalizeName(value);
    case 'TXT':
      if (Buffer.byteLength(value) > MAX_TXT_BYTES) throw new RecordError('INVALID_INPUT', `TXT values are limited to ${MAX_TXT_BYTES} bytes here`);
      return value;
  }
}

export interface Lookup {
  /** Whether the queried name exists at all (it holds records, or records exist below it). */
  exists: boolean;
  /** The CNAME chain followed, then the records of the asked type at its end. */
  answers: DnsRecord[];
}

export function createRecordStore() {
  let records: DnsRecord[] = [];
  /** Bumped on every change; the SOA serial. */
  let serial = 1;

  const at = (name: string) => records.filter((r) => r.name === name);

  return {
    get serial() {
      return serial;
    },

    list(filter: { name?: string; type?: string } = {}): DnsRecord[] {
      const name = filter.name ? normalizeName(filter.name) : undefined;
      return records.filter((r) => (!name || r.name === name) && (!filter.type || r.type === filter.type.toUpperCase()));
    },

    /** Adds a record; the same name/type/value again only updates its TTL, and a CNAME replaces the name's CNAME. */
    add(input: RecordInput): { record: DnsRecord; created: boolean } {
      const parsed = recordInputSchema.parse(input);
      const record: DnsRecord = { name: normalizeName(parsed.name), type: parsed.type, value: normalizeValue(parsed.type, parsed.value), ttl: parsed.ttl };
      const here = at(record.name);
      const others = here.filter((r) => (record.type === 'CNAME' ? r.type !== 'CNAME' : r.type === 'CNAME'));
      if (others.length) {
        throw new RecordError('CONFLICT', `${record.name} already holds ${others.map((r) => r.type).join(', ')} records, and a CNAME cannot share its name with other data`);
      }
      const same = here.find((r) => r.type === record.type && (r.type === 'CNAME' || r.value === record.value));
      serial++;
      if (same) {
        Object.assign(same, record);
        return { record: same, created: false };
      }
      records.push(record);
      return { record, created: true };
    },

    /** Removes the records at `name` (of `type`, with `value`, when given); answers how many went. */
    remove(filter: { name: string; type?: string; value?: string }): number {
      const name = normalizeName(filter.name);
      const type = filter.type?.toUpperCase();
      const before = records.length;
      records = records.filter((r) => !(r.name === name && (!type || r.type === type) && (filter.value === undefined || r.value === normalizeValue(r.type, filter.value))));
      if (records.length !== before) serial++;
      return before - records.length;
    },

    clear(): void {
      records = [];
      serial++;
    },

    lookup(qname: string, qtype: string): Lookup {
      const name = qname.toLowerCase().replace(/\.$/, '');
      const exists = records.some((r) => r.name === name || r.name.endsWith(`.${name}`));
      const answers: DnsRecord[] = [];
      let current = name;
      for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
        const here = at(current);
        const cname = qtype !== 'CNAME' && qtype !== 'ANY' ? here.find((r) => r.type === 'CNAME') : undefined;
        if (!cname) {
          answers.push(...here.filter((r) => qtype === 'ANY' || r.type === qtype));
          break;
        }
        answers.push(cname);
        current = cname.value;
      }
      return { exists, answers };
    },
  };
}

export type RecordStore = ReturnType<typeof createRecordStore>;
