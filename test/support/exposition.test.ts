import { readExposition } from './exposition';

describe('readExposition (the strict check the metrics tests read with)', () => {
  const ok = '# HELP a_total A.\n# TYPE a_total counter\na_total{k="v"} 1\n';

  it('reads well-formed text', () => {
    expect(readExposition(ok).series).toEqual([{ name: 'a_total', labels: { k: 'v' }, value: 1 }]);
  });

  it('reads NaN in any case, as Prometheus does (prom-client writes `Nan` for a gauge with no sample yet)', () => {
    const series = readExposition('# TYPE g gauge\ng{k="a"} Nan\ng{k="b"} NaN\ng{k="c"} +Inf\n').series;
    expect(series.map((s) => [s.labels.k, s.value])).toEqual([
      ['a', NaN],
      ['b', NaN],
      ['c', Infinity],
    ]);
  });

  it.each([
    ['a sample without its TYPE', 'a_total 1\n'],
    ['a malformed sample', '# TYPE a_total counter\na_total{k=v} 1\n'],
    ['a repeated series', '# TYPE a_total counter\na_total 1\na_total 2\n'],
    ['a family declared twice', '# TYPE a gauge\na 1\n# TYPE a gauge\n'],
    ['a bad value', '# TYPE a gauge\na one\n'],
    ['no final newline', ok.slice(0, -1)],
    [
      'a histogram whose +Inf bucket is not its count',
      '# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n',
    ],
    [
      'a histogram whose buckets go down',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    ],
  ])('refuses %s', (_name, text) => expect(() => readExposition(text)).toThrow());
});
