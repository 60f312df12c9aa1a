import { Worker } from 'node:worker_threads';
import { workerWithYoungGeneration } from './worker-young-generation';

/** A worker that reports the size of its young generation's new space, in MB, and ends. */
const reporter = () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads');
     const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
     parentPort.postMessage(space.space_size / 2 ** 20);`,
    { eval: true },
  );

const newSpaceMb = (worker: Worker) =>
  new Promise<number>((resolve, reject) => {
    worker.once('message', (mb: number) => {
      void worker.terminate();
      resolve(mb);
    });
    worker.once('error', reject);
  });

describe('a worker with a young generation held at a size', () => {
  it('starts with semi-spaces of that size, where a worker made as usual starts at a few MB', async () => {
    expect(await newSpaceMb(reporter())).toBeLessThanOrEqual(4);
    expect(await newSpaceMb(workerWithYoungGeneration(16, reporter))).toBeGreaterThanOrEqual(16);
  });

  it('leaves the workers made after it as they were', async () => {
    const held = workerWithYoungGeneration(16, reporter);
    expect(await newSpaceMb(held)).toBeGreaterThanOrEqual(16);
    expect(await newSpaceMb(reporter())).toBeLessThanOrEqual(4);
  });

  it('puts back the setting the process was started with', async () => {
    const held = workerWithYoungGeneration(16, reporter, ['--min-semi-space-size=8']);
    expect(await newSpaceMb(held)).toBeGreaterThanOrEqual(16);
    const after = await newSpaceMb(reporter());
    expect(after).toBeGreaterThanOrEqual(8);
    expect(after).toBeLessThan(16);
    // As the process was: no setting.
    expect(await newSpaceMb(workerWithYoungGeneration(16, reporter, []))).toBeGreaterThanOrEqual(16);
    expect(await newSpaceMb(reporter())).toBeLessThanOrEqual(4);
  });
});
