import { busyPercent, cpuTicks } from './machine-busy';

describe("the machine's busy share", () => {
  it("reads /proc/stat's cpu line: idle and iowait idle, all the rest busy", () => {
    const stat = 'cpu  100 10 30 500 20 0 5 3 0 0\ncpu0 50 5 15 250 10 0 2 1 0 0\nintr 1 2 3\n';
    expect(cpuTicks(stat)).toEqual({ busy: 148, total: 668 });
  });

  it('gives the share busy between two readings', () => {
    expect(busyPercent({ busy: 100, total: 1000 }, { busy: 298, total: 1200 })).toBe(99);
    expect(busyPercent({ busy: 100, total: 1000 }, { busy: 100, total: 1000 })).toBeNull();
  });

  it('refuses what is not a cpu line', () => {
    expect(() => cpuTicks('intr 1 2 3\n')).toThrow(/not a \/proc\/stat cpu line/);
  });
});
