// pg-boss with batches of 100: `localConcurrency` workers per process (the benchmark's concurrency),
// each fetching up to 100 jobs at a time and running them together, fetching again at once while
// batches come back full (burstWhenBatchFull), woken by LISTEN/NOTIFY (useListenNotify and a notify
// queue) when idle, and polling every 0.5 s (the shortest it accepts) otherwise. Completed jobs stay in
// pgboss.job as 'completed' until its retention deletes them.
import { PgBoss } from 'pg-boss';
import { serve } from './peer-protocol.mjs';

const QUEUE = 'noop';
const BATCH = 100;
let db;
let producer;
let workers;

function boss(max, options = {}) {
  return new PgBoss({
    host: db.host, port: db.port, database: db.database, user: db.user, password: db.password,
    application_name: 'docket-bench', max, useListenNotify: true, ...options,
  });
}

async function quietStart(b) {
  b.on('error', (e) => console.error(`[pg-boss] error: ${e?.message ?? e}`));
  await b.start();
}

async function stopWorkers() {
  const w = workers;
  workers = undefined;
  if (w) {
    await w.stop({ graceful: true });
  }
}

serve({
  async open(database) {
    db = database;
    producer = boss(8);
    await quietStart(producer);
    await producer.createQueue(QUEUE, { notify: true });
  },
  async enqueueBatch(from, count) {
    const jobs = new Array(count);
    for (let i = 0; i < count; i++) {
      jobs[i] = { data: { seq: from + i } };
    }
    await producer.insert(QUEUE, jobs);
  },
  async enqueueOne(seq) {
    await producer.send(QUEUE, { seq });
  },
  async start(concurrency, onStart) {
    // Only the producer's instance runs maintenance; the workers' instance only works.
    workers = boss(concurrency + 2, { supervise: false, schedule: false, migrate: false });
    await quietStart(workers);
    await workers.work(QUEUE, {
      batchSize: BATCH, localConcurrency: concurrency, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true,
    }, async (jobs) => {
      for (const job of jobs) {
        onStart(job.data.seq);
      }
    });
  },
  async stop() {
    await stopWorkers();
  },
  async close() {
    await stopWorkers();
    if (producer) {
      const p = producer;
      producer = undefined;
      await p.stop({ graceful: true });
    }
  },
});
