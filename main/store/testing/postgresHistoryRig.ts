import pg from 'pg';
import { startPostgres } from '../../../e2e/support/postgres.mjs';

export interface PostgresRig {
  /** The cluster's own URL (its `postgres` database). */
  url: string;
  /** A new, empty database on the cluster: its URL. */
  database(): Promise<string>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

let next = 0;

/** A private PostgreSQL cluster (e2e/support/postgres.mjs) that hands out one empty database per test. */
export async function startPostgresRig(options: { password?: string } = {}): Promise<PostgresRig> {
  const cluster = await startPostgres(options);
  return {
    url: cluster.url,
    async database() {
      const name = `history_${process.pid}_${next++}`;
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      const url = new URL(cluster.url);
      url.pathname = `/${name}`;
      return url.toString();
    },
    pause: cluster.pause,
    resume: cluster.resume,
    stop: cluster.stop,
  };
}
