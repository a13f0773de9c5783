// The real Temporal server on PostgreSQL, as a production deployment runs it (and as docker-compose.yml's
// `temporal-schema` job and `temporal` service do): the schema of the `temporal` and `temporal_visibility`
// databases set up and migrated by temporal-sql-tool from the versioned files shipped with the server, then
// `temporal-server start` with a config file, then the namespace and the service's search attributes
// registered through the operator API (the dev server's --namespace/--search-attribute flags do that for
// `npm start`; a real server starts with no namespace at all).
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';
import type { TemporalServerBinaries } from '../lib/temporal-binaries.js';
import type { ProcessSpec } from './process.js';
import { freeLowPort } from '../lib/ports.js';

export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  password: string;
}

export const TEMPORAL_DATABASES = { default: 'temporal', visibility: 'temporal_visibility' } as const;

/**
 * History shards of this cluster. Fixed when the `temporal` database is created and never changeable after
 * (docs/deployment.md): 4 serves one machine; production sizes it for the peak (512 and up).
 */
export const LOCAL_HISTORY_SHARDS = 4;

function sqlTool(bin: TemporalServerBinaries, db: PostgresTarget, database: string, args: string[]): Promise<string> {
  const common = ['--plugin', 'postgres12', '--endpoint', db.host, '--port', String(db.port), '--user', db.user, '--password', db.password, '--database', database];
  return new Promise((resolve, reject) =>
    execFile(bin.sqlTool, [...common, ...args], (err, stdout, stderr) =>
      err ? reject(new Error(`temporal-sql-tool ${args[0]} on ${database} failed: ${stderr || stdout || err.message}`)) : resolve(stdout + stderr),
    ),
  );
}

/**
 * Creates (when missing) and migrates both databases to the schema version of this server binary. Safe to
 * run on every start: setup-schema only lays the version table on a fresh database, update-schema applies
 * what is missing.
 */
export async function setupTemporalSchema(bin: TemporalServerBinaries, db: PostgresTarget, log: (line: string) => void = () => undefined): Promise<void> {
  for (const [kind, database] of Object.entries(TEMPORAL_DATABASES)) {
    const versioned = path.join(bin.postgresSchemaDir, kind === 'default' ? 'temporal' : 'visibility', 'versioned');
    await sqlTool(bin, db, database, ['create-database']).catch((err: Error) => {
      if (!/already exists/i.test(err.message)) throw err;
    });
    await sqlTool(bin, db, database, ['setup-schema', '-v', '0.0']).catch((err: Error) => {
      if (!/already exists|schema_version/i.test(err.message)) throw err;
    });
    await sqlTool(bin, db, database, ['update-schema', '--schema-dir', versioned]);
    log(`Temporal schema: ${database} up to date`);
  }
}

export interface TemporalServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/** Ports below 32768: the server stores membership ports in a smallint column (ephemeral ports fail at start-up). */
export async function freeTemporalPorts(taken: Set<number>, frontend?: number): Promise<TemporalServerPorts> {
  if (frontend) taken.add(frontend);
  const ports: number[] = [];
  for (let i = 0; i < 8; i++) ports.push(await freeLowPort(taken));
  return {
    frontend: frontend ?? (await freeLowPort(taken)),
    frontendHttp: ports[0]!,
    frontendMembership: ports[1]!,
    history: ports[2]!,
    historyMembership: ports[3]!,
    matching: ports[4]!,
    matchingMembership: ports[5]!,
    worker: ports[6]!,
    workerMembership: ports[7]!,
  };
}

/**
 * The server's config file: every service (frontend, history, matching, worker) in one process, on
 * loopback, PostgreSQL persistence. In production the same file (or the Helm chart's values) runs each
 * service as its own deployment.
 */
export function temporalConfigYaml(opts: { db: PostgresTarget; ports: TemporalServerPorts; shards: number; logLevel?: string }): string {
  const { db, ports } = opts;
  const store = (database: string, maxConns: number) => `      sql:
        pluginName: "postgres12"
        databaseName: "${database}"
        connectAddr: "${db.host}:${db.port}"
        connectProtocol: "tcp"
        user: "${db.user}"
        password: "${db.password}"
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: "1h"`;
  const service = (grpc: number, membership: number, http?: number) => `    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnIP: "127.0.0.1"${http ? `\n      httpPort: ${http}` : ''}`;
  return `# Written by scripts/cluster/temporal-server.ts on every start.
log:
  stdout: true
  level: ${opts.logLevel ?? 'warn'}

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${opts.shards}
  datastores:
    postgres-default:
${store(TEMPORAL_DATABASES.default, 20)}
    postgres-visibility:
${store(TEMPORAL_DATABASES.visibility, 10)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"

services:
  frontend:
${service(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  history:
${service(ports.history, ports.historyMembership)}
  matching:
${service(ports.matching, ports.matchingMembership)}
  worker:
${service(ports.worker, ports.workerMembership)}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"

dcRedirectionPolicy:
  policy: "noop"
`;
}

/** The server process: config written next to its log, every service in one process. */
export function temporalServerSpec(opts: {
  bin: TemporalServerBinaries;
  db: PostgresTarget;
  ports: TemporalServerPorts;
  dir: string;
  namespace: string;
}): ProcessSpec {
  const configFile = path.join(opts.dir, 'temporal-server.yaml');
  writeFileSync(configFile, temporalConfigYaml({ db: opts.db, ports: opts.ports, shards: LOCAL_HISTORY_SHARDS }));
  const address = `127.0.0.1:${opts.ports.frontend}`;
  return {
    name: 'temporal',
    command: opts.bin.server,
    args: ['--config-file', configFile, '--allow-no-auth', 'start'],
    readyTimeoutMs: 90_000,
    stopGraceMs: 15_000,
    // Ready = the frontend answers and our namespace with its search attributes is usable.
    ready: async () => {
      await registerNamespace(address, opts.namespace);
    },
  };
}

const { IndexedValueType } = proto.temporal.api.enums.v1;
const INDEXED: Record<string, proto.temporal.api.enums.v1.IndexedValueType> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

const isAlreadyExists = (err: unknown) => (err as { code?: number }).code === 6 || /already (exists|registered)/i.test(String(err));

/**
 * Registers the namespace (3 days' retention, as the dev server's default) and the service's search
 * attributes when missing, then checks the namespace serves a visibility query (a new namespace reaches
 * the frontend's cache a few seconds after it was created). Throws until all of that holds.
 */
export async function registerNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  try {
    await connection.workflowService
      .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') })
      .catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (customAttributes ?? {})));
    if (missing.length) {
      await connection.operatorService
        .addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, INDEXED[type]!])) })
        .catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
      throw new Error(`search attributes ${missing.map(([n]) => n).join(', ')} just added`);
    }
    await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1, query: `MerchantId = "readiness"` });
  } finally {
    await connection.close();
  }
}
