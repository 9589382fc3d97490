// graphile-worker with the batching its performance page recommends for throughput: a local queue of
// 500 jobs fetched (and locked) per query, completions and failures batched (delay 0, i.e. all that
// finished in the same tick), a pool of concurrency + 1 connections. Jobs are deleted on completion.
import { Logger, makeWorkerUtils, run, runMigrations } from 'graphile-worker';
import { pool, serve } from './peer-protocol.mjs';

const LOCAL_QUEUE = 500;
let db;
let producerPool;
let utils;
let runner;
let workerPool;

async function stopRunner() {
  const r = runner;
  runner = undefined;
  if (r) {
    await r.stop();
  }
  const p = workerPool;
  workerPool = undefined;
  if (p) {
    await p.end();
  }
}

serve({
  async open(database) {
    db = database;
    producerPool = pool(db, 8);
    await runMigrations({ pgPool: producerPool, logger: quietLogger() });
    utils = await makeWorkerUtils({ pgPool: producerPool, logger: quietLogger() });
  },
  async enqueueBatch(from, count) {
    const specs = new Array(count);
    for (let i = 0; i < count; i++) {
      specs[i] = { identifier: 'noop', payload: { seq: from + i } };
    }
    await utils.addJobs(specs);
  },
  async enqueueOne(seq) {
    await utils.addJob('noop', { seq });
  },
  async start(concurrency, onStart) {
    workerPool = pool(db, concurrency + 1);
    runner = await run({
      pgPool: workerPool,
      noHandleSignals: true,
      logger: quietLogger(),
      taskList: { noop: async (payload) => onStart(payload.seq) },
      preset: {
        worker: {
          concurrentJobs: concurrency,
          localQueue: { size: LOCAL_QUEUE },
          completeJobBatchDelay: 0,
          failJobBatchDelay: 0,
        },
      },
    });
  },
  async stop() {
    await stopRunner();
  },
  async close() {
    await stopRunner();
    if (utils) {
      await utils.release();
      utils = undefined;
    }
    if (producerPool) {
      await producerPool.end();
      producerPool = undefined;
    }
  },
});

// Worker logs go to stderr only when they are warnings or errors.
function quietLogger() {
  return new Logger(() => (level, message) => {
    if (level === 'error' || level === 'warning') {
      console.error(`[graphile-worker] ${level}: ${message}`);
    }
  });
}
