import cluster from 'node:cluster';

// Wiring only. The gateway is a primary process that reads the settings and runs WORKERS
// workers, each of which serves (src/workers/): the primary does not load the request path.
if (cluster.isWorker) {
  const { runWorker } = await import('./workers/worker.js');
  runWorker();
} else {
  const { runPrimary } = await import('./workers/primary.js');
  await runPrimary();
}
