// Hand-made SVG charts (no chart library: a few hundred bytes of geometry instead of a 100 KB dependency).
// Each chart is an <svg role="img"> with a text summary for screen readers, <title> tooltips per point,
// and scales with its container (viewBox).
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatNumber, formatPercent } from './format.js';

/** The rendered width of an element (the SVG draws in real pixels, so its text never shrinks). */
function useWidth(fallback: number): [{ current: HTMLElement | null }, number] {
  const ref = useRef<HTMLElement | null>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => {
      const w = Math.round(entry?.contentRect.width ?? 0);
      if (w > 0) setWidth(w);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** Round, readable axis maximum and ticks for values up to `max`. */
export function niceTicks(max: number, count = 4): number[] {
  if (max <= 0) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 0.999; v += step) ticks.push(Math.round(v * 1e6) / 1e6);
  return ticks;
}

export interface Series {
  name: string;
  values: number[];
  /** CSS color (a custom property is fine). */
  color: string;
  kind: 'bar' | 'line';
}

const H = 240;
const PAD = { top: 16, right: 14, bottom: 34 };

/** Bars and/or lines over shared labels (days or weeks), one y axis. */
export function TimeChart(props: { labels: string[]; series: Series[]; label: string; format?: (v: number) => string }) {
  const [ref, W] = useWidth(640);
  const fmt = props.format ?? formatNumber;
  const n = props.labels.length;
  const max = Math.max(0, ...props.series.flatMap((s) => s.values));
  const ticks = niceTicks(max);
  const top = ticks[ticks.length - 1]!;
  // Room for the longest tick label (about 7 px a character at 11 px).
  const left = Math.max(28, ...ticks.map((t) => fmt(t).length * 7 + 12));
  const plotW = W - left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => left + (plotW / Math.max(1, n)) * (i + 0.5);
  const y = (v: number) => PAD.top + plotH - (top === 0 ? 0 : (v / top) * plotH);
  const bars = props.series.filter((s) => s.kind === 'bar');
  const slot = plotW / Math.max(1, n);
  const barW = Math.max(2, Math.min(28, (slot * 0.7) / Math.max(1, bars.length)));
  const labelEvery = Math.ceil(n / Math.max(2, Math.floor(W / 70)));
  const summary = props.series.map((s) => `${s.name}: ${fmt(s.values.reduce((a, b) => a + b, 0))} in total`).join('; ');
  return (
    <figure class="chart" ref={ref}>
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`${props.label}. ${summary}`} preserveAspectRatio="xMidYMid meet">
        {ticks.map((t) => (
          <g key={t}>
            <line x1={left} x2={W - PAD.right} y1={y(t)} y2={y(t)} class="grid" />
            <text x={left - 8} y={y(t) + 4} text-anchor="end" class="axis">{fmt(t)}</text>
          </g>
        ))}
        {bars.map((s, si) =>
          s.values.map((v, i) => (
            <rect key={`${s.name}-${i}`} x={x(i) - (barW * bars.length) / 2 + si * barW} y={y(v)} width={barW - 1} height={Math.max(0, y(0) - y(v))} rx={2} fill={s.color}>
              <title>{`${props.labels[i]}: ${s.name} ${fmt(v)}`}</title>
            </rect>
          )),
        )}
        {props.series
          .filter((s) => s.kind === 'line')
          .map((s) => (
            <g key={s.name}>
              <polyline fill="none" stroke={s.color} stroke-width={2.5} stroke-linejoin="round" points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />
              {s.values.map((v, i) => (
                <circle key={i} cx={x(i)} cy={y(v)} r={n > 14 ? 2 : 3.5} fill="#fff" stroke={s.color} stroke-width={2}>
                  <title>{`${props.labels[i]}: ${s.name} ${fmt(v)}`}</title>
                </circle>
              ))}
            </g>
          ))}
        {props.labels.map((l, i) => (i % labelEvery === 0 ? <text key={i} x={x(i)} y={H - 12} text-anchor="middle" class="axis">{l}</text> : null))}
        <line x1={left} x2={W - PAD.right} y1={y(0)} y2={y(0)} class="baseline" />
      </svg>
      <figcaption class="legend">
        {props.series.map((s) => (
          <span key={s.name} class="legend-item">
            <span class={`legend-swatch ${s.kind}`} style={{ background: s.color }} aria-hidden="true" /> {s.name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** About how wide a funnel label draws at 13 px, semibold (a little over the average glyph, so it never runs into the bar). */
const labelWidth = (text: string) => Math.ceil(text.length * 8) + 16;
/** Room right of the bar for the count and "100.0% of prev.". */
const VALUE_W = 104;

/**
 * The checkout funnel as horizontal bars: each step's sessions, its conversion from the step before. Labels sit left
 * of the bars when the longest fits in a third of the width; otherwise (a phone, a half-width card) above each bar.
 */
export function FunnelChart(props: { steps: Array<{ label: string; sessions: number; stepConversion: number | null; overallConversion: number | null }> }) {
  const [ref, W] = useWidth(640);
  const first = props.steps[0]?.sessions ?? 0;
  const longest = Math.max(0, ...props.steps.map((s) => labelWidth(s.label)));
  const beside = longest <= W / 3;
  const rowH = beside ? 46 : 58;
  const labelW = beside ? longest : 0;
  const barTop = beside ? 6 : 20;
  const barMax = Math.max(40, W - labelW - VALUE_W);
  const h = props.steps.length * rowH + 8;
  const summary = props.steps.map((s) => `${s.label} ${formatNumber(s.sessions)}`).join(', ');
  return (
    <figure class="chart funnel" ref={ref} data-labels={beside ? 'beside' : 'above'}>
      <svg viewBox={`0 0 ${W} ${h}`} width={W} height={h} role="img" aria-label={`Checkout funnel: ${summary}`}>
        {props.steps.map((s, i) => {
          const w = first === 0 ? 0 : Math.max(s.sessions > 0 ? 3 : 0, (s.sessions / first) * barMax);
          const yy = i * rowH + 6;
          return (
            <g key={s.label}>
              <text x={0} y={beside ? yy + 22 : yy + 12} class="funnel-label">{s.label}</text>
              <rect x={labelW} y={yy + barTop} width={barMax} height={26} rx={4} class="funnel-track" />
              <rect x={labelW} y={yy + barTop} width={w} height={26} rx={4} class="funnel-bar" style={{ opacity: 1 - i * 0.12 }}>
                <title>{`${s.label}: ${formatNumber(s.sessions)} sessions`}</title>
              </rect>
              <text x={labelW + barMax + 8} y={yy + barTop + 12} class="funnel-value">{formatNumber(s.sessions)}</text>
              <text x={labelW + barMax + 8} y={yy + barTop + 27} class="funnel-rate">{i === 0 ? 'started' : `${formatPercent(s.stepConversion)} of prev.`}</text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** A ring split into parts (e.g. paid / refunded / COD). */
export function Donut(props: { parts: Array<{ label: string; value: number; color: string }>; label: string; center: string }) {
  const total = props.parts.reduce((a, p) => a + p.value, 0);
  const r = 60;
  const c = 2 * Math.PI * r;
  let offset = 0;
  return (
    <figure class="donut">
      <svg viewBox="0 0 160 160" role="img" aria-label={`${props.label}: ${props.parts.map((p) => `${p.label} ${formatNumber(p.value)}`).join(', ')}`}>
        <circle cx={80} cy={80} r={r} fill="none" class="donut-track" stroke-width={22} />
        {total > 0 &&
          props.parts.map((p) => {
            const len = (p.value / total) * c;
            const el = (
              <circle key={p.label} cx={80} cy={80} r={r} fill="none" stroke={p.color} stroke-width={22} stroke-dasharray={`${len} ${c - len}`} stroke-dashoffset={-offset} transform="rotate(-90 80 80)">
                <title>{`${p.label}: ${formatNumber(p.value)}`}</title>
              </circle>
            );
            offset += len;
            return el;
          })}
        <text x={80} y={86} text-anchor="middle" class="donut-center">{props.center}</text>
      </svg>
      <figcaption class="legend vertical">
        {props.parts.map((p) => (
          <span key={p.label} class="legend-item">
            <span class="legend-swatch bar" style={{ background: p.color }} aria-hidden="true" /> {p.label} <strong>{formatNumber(p.value)}</strong>
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
