import uPlot from './uplot.js';
import { el } from './dom.js';

const DAY_SECONDS = 24 * 60 * 60;

/** The chart's colours from the page's own (light or dark), so it follows the page's scheme. */
const colour = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/**
 * A link's clicks per day as a uPlot line chart that fills its box's width, and the same numbers as a table for
 * screen readers and keyboards (a canvas says nothing to them). `update` draws new numbers into the same chart.
 */
export function clicksChart(label: string): {
  element: HTMLElement;
  update(days: { date: string; clicks: number }[]): void;
} {
  const box = el('div', { className: 'chart', attrs: { role: 'img', 'aria-label': label } });
  const rows = el('tbody');
  const table = el(
    'details',
    { className: 'chart-table' },
    el('summary', {}, 'Clicks per day as a table'),
    el(
      'table',
      {},
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { attrs: { scope: 'col' } }, 'Day'),
          el('th', { className: 'number', attrs: { scope: 'col' } }, 'Clicks'),
        ),
      ),
      rows,
    ),
  );
  let chart: uPlot | null = null;
  const width = (): number => Math.max(240, box.clientWidth || 320);
  const resize = new ResizeObserver(() => chart?.setSize({ width: width(), height: 220 }));
  resize.observe(box);

  function update(days: { date: string; clicks: number }[]): void {
    const data: uPlot.AlignedData = [
      days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000),
      days.map((d) => d.clicks),
    ];
    rows.replaceChildren(
      ...days.map((d) => el('tr', {}, el('td', {}, d.date), el('td', { className: 'number' }, String(d.clicks)))),
    );
    const total = days.reduce((sum, d) => sum + d.clicks, 0);
    box.setAttribute('aria-label', `${label}: ${total} clicks over ${days.length} days`);
    if (chart) return chart.setData(data);
    const accent = colour('--accent') || '#0a58ca';
    const muted = colour('--muted') || '#57606a';
    const line = colour('--line') || '#d0d7de';
    const axis = { stroke: muted, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };
    chart = new uPlot(
      {
        width: width(),
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        cursor: { drag: { x: false, y: false } },
        legend: { show: false },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          { ...axis, space: 60, incrs: [DAY_SECONDS, 7 * DAY_SECONDS, 30 * DAY_SECONDS, 365 * DAY_SECONDS] },
          { ...axis, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 10_000, 100_000] },
        ],
        series: [{}, { label: 'Clicks', stroke: accent, width: 2, fill: `${accent}22`, points: { show: true } }],
      },
      data,
      box,
    );
  }
  return { element: el('div', {}, box, table), update };
}
