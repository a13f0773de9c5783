// The throwaway PostgreSQL server, shared with the benchmarks (scripts never import test/).
export { startPostgres, type PostgresCluster } from '../../scripts/lib/stack/postgres.js';
