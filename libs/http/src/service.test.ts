import { stopModules, type ServiceModule } from './service';

describe('stopModules', () => {
  const log = () => ({ warn: jest.fn(), error: jest.fn() });

  it('stops modules in the reverse order of their start, each given the deadline', async () => {
    const order: string[] = [];
    const deadlines: (number | undefined)[] = [];
    const module = (name: string): ServiceModule => ({
      name,
      async stop(deadline) {
        order.push(name);
        deadlines.push(deadline);
      },
    });
    const deadline = Date.now() + 5_000;
    await stopModules([module('a'), module('b'), module('c')], deadline, log());
    expect(order).toEqual(['c', 'b', 'a']);
    expect(deadlines).toEqual([deadline, deadline, deadline]);
  });

  it('goes on without a module that has not stopped by the deadline, and still stops the others', async () => {
    // Given a module whose stop never ends (a consumer's disconnect from a stalled broker) between two others
    const stopped: string[] = [];
    const quick = (name: string): ServiceModule => ({ name, stop: async () => void stopped.push(name) });
    const stuck: ServiceModule = { name: 'stuck', stop: () => new Promise<void>(() => undefined) };
    const logger = log();

    // When they are stopped with 200 ms left
    const started = Date.now();
    await stopModules([quick('first'), stuck, quick('last')], started + 200, logger);

    // Then the stop returns by the deadline, having stopped the others, and says which one it left
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(stopped).toEqual(['last', 'first']);
    expect(logger.warn).toHaveBeenCalledWith(
      { module: 'stuck' },
      'module did not stop in time; the process closes without waiting for it',
    );
  });

  it('logs a module that fails to stop, and stops the others', async () => {
    const stopped: string[] = [];
    const failing: ServiceModule = {
      name: 'failing',
      stop: async () => {
        throw new Error('no');
      },
    };
    const logger = log();
    await stopModules([{ name: 'a', stop: async () => void stopped.push('a') }, failing], Date.now() + 1_000, logger);
    expect(stopped).toEqual(['a']);
    expect(logger.error).toHaveBeenCalledWith(
      { err: expect.any(Error), module: 'failing' },
      'module failed to stop cleanly',
    );
  });
});
