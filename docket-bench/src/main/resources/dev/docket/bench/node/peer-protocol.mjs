// The line protocol between the benchmark (Java, NodeDriver) and one Node.js queue: one JSON command per
// line on stdin, answered by "R <id> ok" or "R <id> error <message>" on stdout. Commands may overlap
// (single enqueues come from several producer threads), so each answer carries its command's id.
// One process serves a whole benchmark run: each measurement opens the queue on a fresh database and
// closes it afterwards (open after open closes the earlier one first). While workers run, each handler
// start is written as "S <seq> <monotonic ns>": the clock is CLOCK_MONOTONIC, the same one Java's
// System.nanoTime() reads on Linux, so the Java side times starts without the pipe's delay.
import { createInterface } from 'node:readline';
import pg from 'pg';

let pending = [];
let flushScheduled = false;

function write(line) {
  pending.push(line);
  if (!flushScheduled) {
    flushScheduled = true;
    // One write per event-loop turn: a drain at tens of thousands of starts per second stays cheap.
    setImmediate(() => {
      flushScheduled = false;
      const chunk = pending.join('\n') + '\n';
      pending = [];
      process.stdout.write(chunk);
    });
  }
}

/** A pg pool on the database the benchmark created, with the connection fields it passed. */
export function pool(db, max) {
  const p = new pg.Pool({ host: db.host, port: db.port, database: db.database, user: db.user,
    password: db.password, max, application_name: 'docket-bench' });
  // A client's error (e.g. the benchmark dropping the database) must not crash the driver.
  const logError = (e) => console.error(`[pg pool] ${e.message}`);
  p.on('error', logError);
  p.on('connect', (client) => client.on('error', logError));
  return p;
}

/**
 * Serves one queue adapter: {open(db, config), enqueueBatch(from, count), enqueueOne(seq),
 * start(concurrency, onStart), stop(), close()}, each returning a promise; close() may be called when
 * nothing is open.
 */
export function serve(adapter) {
  const started = (seq) => write(`S ${seq} ${process.hrtime.bigint()}`);
  const ops = {
    open: async (c) => {
      await adapter.close();
      await adapter.open(c.db, c.config);
    },
    enqueueBatch: (c) => adapter.enqueueBatch(c.from, c.count),
    enqueueOne: (c) => adapter.enqueueOne(c.seq),
    start: (c) => adapter.start(c.concurrency, started),
    stop: () => adapter.stop(),
    close: () => adapter.close(),
  };
  const input = createInterface({ input: process.stdin });
  input.on('line', async (line) => {
    let command;
    try {
      command = JSON.parse(line);
      const op = ops[command.op];
      if (!op) {
        throw new Error(`unknown op ${command.op}`);
      }
      await op(command);
      write(`R ${command.id} ok`);
    } catch (e) {
      write(`R ${command?.id ?? -1} error ${String(e?.stack ?? e).replace(/\s+/g, ' ')}`);
    }
  });
  // The benchmark closing our stdin (or dying) ends the process: no orphaned Node peers.
  input.on('close', async () => {
    try {
      await adapter.close();
    } finally {
      process.exit(0);
    }
  });
}
