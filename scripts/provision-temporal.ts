// `npm run provision`: makes sure the Temporal CLI, the time-skipping test server, the real Temporal server (with
// temporal-sql-tool, for the cluster and its drill) and Schemathesis (the OpenAPI fuzzer of
// test/api/openapi-conformance.test.ts) are available (cached under ~/.cache/checkout-service), and prints their
// paths. CI runs this before `npm test`.
import { ensureTemporalCli, ensureTemporalServer, ensureTestServer, ProvisionError } from './lib/temporal-binaries.js';
import { ensureSchemathesis } from './lib/schemathesis.js';

const progress = (line: string) => console.log(line);
try {
  const t0 = Date.now();
  const cli = await ensureTemporalCli(progress);
  console.log(`temporal CLI:         ${cli}`);
  const testServer = await ensureTestServer(progress);
  console.log(`time-skipping server: ${testServer}`);
  const schemathesis = await ensureSchemathesis(progress);
  console.log(`schemathesis ${schemathesis.version}: ${schemathesis.python} -m schemathesis.cli`);
  const server = await ensureTemporalServer(progress);
  console.log(`temporal server:      ${server.server} (${server.version}; sql tool ${server.sqlTool})`);
  console.log(`provisioned in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
} catch (err) {
  if (err instanceof ProvisionError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
