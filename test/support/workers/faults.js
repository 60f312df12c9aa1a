// @ts-check
/**
 * Ends the worker thread the moment it would tell the main thread that Kafka
 * acknowledged a batch (after `before` runs): the batch is written, and the
 * main thread never hears of it.
 * @param {import('node:worker_threads').MessagePort | null} port
 * @param {() => void} before
 */
function dieOnFirstAck(port, before) {
  if (!port) throw new Error('runs as a worker thread');
  const post = port.postMessage.bind(port);
  port.postMessage = (/** @type {{ type: string }} */ message) => {
    if (message.type === 'sent') {
      before();
      process.exit(1);
    }
    post(message);
  };
}

module.exports = { dieOnFirstAck };
