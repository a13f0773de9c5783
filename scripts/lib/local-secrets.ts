// Local runs need a JWT secret and an encryption key without anyone setting them: generated once under
// DATA_DIR (mode 0600) and reused, so tokens and encrypted secrets survive a restart. Production must set
// JWT_SECRET and SECRETS_KEY (config refuses to start without them).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/index.js';

export function withLocalSecrets(config: Config): Config {
  if (config.jwtSecret && config.secretsKey) return config;
  const file = path.join(config.dataDir, 'local-secrets.json');
  let stored: { jwtSecret: string; secretsKey: string };
  if (existsSync(file)) {
    stored = JSON.parse(readFileSync(file, 'utf8')) as typeof stored;
  } else {
    mkdirSync(config.dataDir, { recursive: true });
    stored = { jwtSecret: randomBytes(48).toString('base64url'), secretsKey: randomBytes(32).toString('base64') };
    writeFileSync(file, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 });
  }
  return { ...config, jwtSecret: config.jwtSecret ?? stored.jwtSecret, secretsKey: config.secretsKey ?? stored.secretsKey };
}
