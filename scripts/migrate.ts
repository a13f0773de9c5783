// `npm run migrate`: applies prisma/migrations to DATABASE_URL (what `prisma migrate deploy` would do)
// and seeds the FX rates from the committed snapshot when the table is empty.
import { loadConfig } from '../config/index.js';
import { migrate } from '../prisma/migrate.js';
import { createDb } from '../prisma/client.js';
import { seedFxRatesIfEmpty } from '../activities/fx/fx-rates.js';

const config = loadConfig();
if (!config.databaseUrl) {
  console.error('DATABASE_URL is not set (npm start migrates its embedded database by itself)');
  process.exit(2);
}
const { applied, alreadyApplied } = await migrate(config.databaseUrl, { log: console.log });
console.log(`${applied.length} migration(s) applied, ${alreadyApplied} already applied`);
const db = createDb(config.databaseUrl);
if (await seedFxRatesIfEmpty(db)) console.log('fx_rates seeded from prisma/seed/ecb-eurofxref-daily.xml');
await db.$disconnect();
