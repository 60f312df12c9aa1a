import { Worker, type ResourceLimits } from 'node:worker_threads';
import { CLICK_WORKER_YOUNG_GENERATION as held4to8, workerWithYoungGeneration } from './worker-young-generation';

/**
 * A worker that reports the size of its young generation's new space (its
 * semi-spaces), in MB, and ends. With `survivors`, it first keeps that
 * many objects made in small batches, as a busy worker's live data grows:
 * V8 then grows a young generation that it may grow, and the largest new
 * space seen is reported.
 */
const reporter =
  (survivors = 0) =>
  (resourceLimits?: ResourceLimits) =>
    new Worker(
      `const { parentPort } = require('node:worker_threads');
       const newSpace = () => require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
       let largest = newSpace();
       const kept = [];
       for (let i = 0; i < ${survivors}; i++) {
         kept.push({ i, text: 'survivor ' + i });
         if (i % 1000 === 0) largest = Math.max(largest, newSpace());
       }
       parentPort.postMessage(Math.max(largest, newSpace()));`,
      { eval: true, resourceLimits },
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
  it('starts with a new space of its least, where a worker made as usual starts at a MB or two', async () => {
    expect(await newSpaceMb(reporter()())).toBeLessThanOrEqual(2);
    expect(await newSpaceMb(workerWithYoungGeneration(held4to8, reporter()))).toBe(4);
  });

  it('grows it no further than its most as its live data grows, where a worker made as usual grows it to 32 MB', async () => {
    expect(await newSpaceMb(reporter(2_000_000)())).toBe(32);
    expect(await newSpaceMb(workerWithYoungGeneration(held4to8, reporter(2_000_000)))).toBe(8);
  });

  it('leaves the workers made after it as they were', async () => {
    const held = workerWithYoungGeneration(held4to8, reporter());
    expect(await newSpaceMb(held)).toBe(4);
    expect(await newSpaceMb(reporter()())).toBeLessThanOrEqual(2);
  });

  it('puts back the setting the process was started with', async () => {
    const held = workerWithYoungGeneration(held4to8, reporter(), ['--min-semi-space-size=6']);
    expect(await newSpaceMb(held)).toBe(4);
    expect(await newSpaceMb(reporter()())).toBe(6);
    // As the process was: no setting.
    expect(await newSpaceMb(workerWithYoungGeneration(held4to8, reporter(), []))).toBe(4);
    expect(await newSpaceMb(reporter()())).toBeLessThanOrEqual(2);
  });
});
