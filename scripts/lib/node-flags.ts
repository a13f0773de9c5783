// The Node flags every process of the service runs with (the API, the worker, `npm start`'s one process, the
// cluster's children, the Docker image; the benchmarks too, so a baseline runs as the service does). One list:
// package.json's scripts, the Dockerfile and scripts/cluster/cluster.ts carry it, and test/lint/node-flags.test.ts
// checks that they all do.
//
// --max-semi-space-size=64: V8's young generation may grow to 64 MB per semi-space (the default stops at 16 MB on a
// 64-bit machine with this much memory). A checkout allocates a lot that dies young (Prisma's query plans and results,
// HTTP and protobuf buffers): with small semi-spaces much of it is scavenged again and again or promoted to the old
// generation and marked there. In a CPU profile of a 500-shopper flash sale (50 at a time, `npm start` topology) the
// garbage collector took 7.9 % of the main thread without it and 4.2 % with it; the sale's checkouts/s over three
// alternating pairs of runs, 7.86, 7.86, 9.03 without and 8.75, 9.87, 8.49 with; the bench process's peak resident
// memory 1.63 GB against 1.72 GB (docs/deployment.md).
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=64'] as const;
