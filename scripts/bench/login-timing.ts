// Login timing: does the answer's timing tell whether an email has an account? Logs in N times with an
// unknown email and N times with a known email and a wrong password, interleaved, against the real API
// (buildApp + inject) on an embedded database, and prints both medians and their ratio (target: within 20%).
import { Client, Connection } from '@temporalio/client';
import { buildApp } from '../../api/app.js';
import { createDb } from '../../prisma/client.js';
import { migrate } from '../../prisma/migrate.js';
import { hashPassword } from '../../security/passwords.js';
import { loadConfig } from '../../config/index.js';
import { startPostgres } from '../lib/stack/postgres.js';

export async function benchLoginTiming(rounds = 60): Promise<Record<string, number>> {
  const pg = await startPostgres();
  const db = createDb(pg.url(), { max: 2 });
  // Nothing listens here: login needs no Temporal, and a lazy connection never dials.
  const connection = Connection.lazy({ address: '127.0.0.1:1' });
  try {
    await migrate(pg.url());
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'), RATE_LIMIT_LOGIN: '100000/60' });
    await db.merchant.create({ data: { email: 'known@bench.test', passwordHash: await hashPassword('the real password 1'), shopName: 'Bench', phone: '+4912345678', slug: 'bench' } });
    const app = await buildApp({ config, db, temporal: { client: new Client({ connection }), connection }, logger: false });
    const login = async (email: string) => {
      const started = performance.now();
      const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'a wrong password 2' } });
      if (res.statusCode !== 401) throw new Error(`expected 401, got ${res.statusCode}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 5; i++) await login('warmup@bench.test'); // JIT and pool warm-up, not measured
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < rounds; i++) {
      unknown.push(await login(`ghost${i}@bench.test`));
      wrong.push(await login('known@bench.test'));
    }
    await app.close();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
    return {
      rounds,
      unknownEmailMedianMs: median(unknown),
      wrongPasswordMedianMs: median(wrong),
      unknownEmailP90Ms: p90(unknown),
      wrongPasswordP90Ms: p90(wrong),
      ratio: median(unknown) / median(wrong),
    };
  } finally {
    await connection.close().catch(() => undefined);
    await db.$disconnect();
    await pg.stop();
  }
}
