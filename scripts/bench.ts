// `npm run bench [-- <name> ...]`: every benchmark of the service, each printing its figures and a ratio
// against the baseline it names. Timings belong here, not in tests (shared machines are noisy).
import { benchLoginTiming } from './bench/login-timing.js';

const BENCHES: Record<string, { describe: string; run: () => Promise<Record<string, number>> }> = {
  'login-timing': {
    describe: 'login with an unknown email vs a wrong password: medians and their ratio (target 0.8–1.2)',
    run: () => benchLoginTiming(),
  },
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !(w in BENCHES));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
for (const [name, bench] of Object.entries(BENCHES)) {
  if (wanted.length && !wanted.includes(name)) continue;
  console.log(`\n## ${name}: ${bench.describe}`);
  const started = Date.now();
  const figures = await bench.run();
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(24)} ${Number.isInteger(v) ? v : v.toFixed(3)}`);
  console.log(`  (${((Date.now() - started) / 1000).toFixed(1)}s)`);
}
