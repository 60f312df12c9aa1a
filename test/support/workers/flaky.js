// @ts-check
/**
 * A click worker whose first instance dies after Kafka acknowledged its first
 * batch, whose second cannot reach Kafka, and whose later ones are the real
 * worker (argv[2]). Instances are counted in a file (argv[3]).
 */
const { appendFileSync, readFileSync } = require('node:fs');
const { parentPort } = require('node:worker_threads');
const { dieOnFirstAck } = require('./faults');

const [realWorker, counter] = process.argv.slice(2);
appendFileSync(counter, 'x');
const instance = readFileSync(counter, 'utf8').length;
if (instance === 2) {
  parentPort?.postMessage({ type: 'start-failed', message: 'broker unreachable (test)' });
} else {
  if (instance === 1) dieOnFirstAck(parentPort, () => undefined);
  require(realWorker);
}
