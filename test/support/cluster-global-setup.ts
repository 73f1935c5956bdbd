/**
 * vitest globalSetup of the conformance project: one 3-master Redis Cluster (our own
 * redis-server processes on free ports, see redis-cluster.ts) for every suite that runs on the
 * cluster, provided to them as `clusterNodes` (`host:port,…`, empty when none could be started).
 * Without redis-server the cluster backend is skipped with a note; with REQUIRE_REDIS=1 (CI) the
 * run fails instead. Stopped when the run ends.
 */
import type { TestProject } from 'vitest/node';
import { clusterToolsAvailable, startCluster } from './redis-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    clusterNodes: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!clusterToolsAvailable()) {
    if (process.env.REQUIRE_REDIS === '1') {
      throw new Error('REQUIRE_REDIS=1 but redis-server/redis-cli are not on PATH to start a Redis Cluster');
    }
    console.warn('[skip] no redis-server on PATH: the Redis Cluster backend is skipped');
    project.provide('clusterNodes', '');
    return undefined;
  }
  const cluster = await startCluster({ masters: 3 });
  project.provide('clusterNodes', cluster.spec);
  return () => cluster.stop();
}
