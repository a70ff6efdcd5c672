import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { DayActivity } from '../api';
import { ACTIVITY_SERIES } from '../activity';

const HEIGHT = 280;

/**
 * The activity of the last days as lines, one per kind, drawn on a canvas by
 * uPlot. Loaded lazily (AdminDashboardPage): uPlot is not part of the first
 * load. It follows its container's width.
 */
export default function ActivityChart({ days }: { days: DayActivity[] }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const target = box.current;
    if (!target) return;
    // Days at noon in Pakistan, so each tick falls on its own day.
    const xs = days.map((d) => Date.parse(`${d.day}T12:00:00+05:00`) / 1000);
    const data: uPlot.AlignedData = [xs, ...ACTIVITY_SERIES.map((s) => days.map((d) => d[s.key]))];
    const plot = new uPlot(
      {
        width: Math.max(280, target.clientWidth),
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Asia/Karachi'),
        scales: { y: { range: (_u, _min, max) => [0, Math.max(4, max)] } },
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
        series: [
          { label: 'Day', value: (_u, ts) => (ts == null ? '' : new Date(ts * 1000).toLocaleDateString('en-PK', { timeZone: 'Asia/Karachi' })) },
          ...ACTIVITY_SERIES.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: true, size: 5 } })),
        ],
      },
      data,
      target,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, target.clientWidth), height: HEIGHT }));
    resize.observe(target);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days]);

  return <div ref={box} className="activity-chart" aria-hidden="true" />;
}
