// What the app is built from (AppDeps) and what every route plugin receives (RouteDeps, resolved): its own module,
// so routes depend on it and not on api/app.ts, which imports every route.
import type { FastifyServerOptions } from 'fastify';
import type { Client, Connection } from '@temporalio/client';
import { unguardedOrigins, type Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import { createSecretBox, type SecretBox } from '../security/secrets.js';
import { createUrlGuard, type UrlGuard } from '../security/ssrf.js';

export interface AppDeps {
  config: Config;
  db: Db;
  temporal: { client: Client; connection: Connection };
  logger?: FastifyServerOptions['logger'];
  /** Encryption of secrets at rest; built from config.secretsKey when not given. */
  secrets?: SecretBox;
  /** SSRF guard for URLs merchants give us; built from config when not given. */
  urlGuard?: UrlGuard;
}

/** What route plugins receive: the app's dependencies, resolved. */
export type RouteDeps = Required<Omit<AppDeps, 'logger'>>;

export function resolveDeps(deps: AppDeps): RouteDeps {
  const { config } = deps;
  if (!config.secretsKey || !config.jwtSecret) throw new Error('SECRETS_KEY and JWT_SECRET must be set (npm start generates local ones)');
  return {
    config,
    db: deps.db,
    temporal: deps.temporal,
    secrets: deps.secrets ?? createSecretBox(config.secretsKey),
    // The sandbox and local stores run on loopback http: reachable only while config enables them (never in production).
    urlGuard: deps.urlGuard ?? createUrlGuard({ allowedOrigins: unguardedOrigins(config) }),
  };
}
