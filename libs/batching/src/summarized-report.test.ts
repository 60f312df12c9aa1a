import { summarizedReport } from './summarized-report';

describe('summarizedReport', () => {
  it('says the first event at once, a burst after it together at the end of the window, and the rest on flush', () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const said: [number, string][] = [];
      const report = summarizedReport<string>(5000, (count, latest) => said.push([count, latest]));
      report.add('a');
      expect(said).toEqual([[1, 'a']]);
      for (const id of ['b', 'c', 'd']) report.add(id);
      expect(said).toHaveLength(1);
      jest.advanceTimersByTime(5000);
      expect(said).toEqual([
        [1, 'a'],
        [3, 'd'],
      ]);
      report.add('e');
      report.flush();
      report.flush();
      expect(said.at(-1)).toEqual([1, 'e']);
      expect(said).toHaveLength(3);
    } finally {
      jest.useRealTimers();
    }
  });
});
