import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TEST_ENV } from './config.js';
import { startRedis, type RedisServer } from './redis-server.js';

const run = promisify(execFile);

export interface RedisCluster {
  /** Every master; any one is a seed for a cluster client. */
  readonly nodes: readonly RedisServer[];
  readonly seedUrl: string;
  close(): Promise<void>;
}

/**
 * A Redis Cluster of `masters` local redis-server processes (no replicas), joined with
 * `redis-cli --cluster create`, resolved once every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const cli = TEST_ENV.redisCliBin ?? 'redis-cli';
  const nodes: RedisServer[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      nodes.push(await startRedis({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'] }));
    }
    await run(cli, ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    const deadline = Date.now() + 20_000;
    for (const node of nodes) {
      for (;;) {
        const { stdout } = await run(cli, ['-p', String(node.port), 'cluster', 'info'], { timeout: 5_000 });
        if (stdout.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error(`cluster did not become ready:\n${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await Promise.all(nodes.map((node) => node.close()));
    throw error;
  }
  return {
    nodes,
    seedUrl: (nodes[0] as RedisServer).url,
    close: async () => {
      await Promise.all(nodes.map((node) => node.close()));
    },
  };
}
