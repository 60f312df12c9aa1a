// @ts-check
/**
 * A click worker that runs the real one (argv[2]) but, the first time only
 * (argv[3] is a marker file), ends the thread at the moment it would report
 * Kafka's acknowledgement of its first batch: written, never heard of.
 */
const { existsSync, writeFileSync } = require('node:fs');
const { parentPort } = require('node:worker_threads');
const { dieOnFirstAck } = require('./faults');

const [realWorker, marker] = process.argv.slice(2);
if (!existsSync(marker)) dieOnFirstAck(parentPort, () => writeFileSync(marker, ''));
require(realWorker);
