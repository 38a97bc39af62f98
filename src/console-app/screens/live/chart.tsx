import { format, useText } from "../../i18n";
import { liveText } from "../../messages/live";

interface Bucket {
  start: string;
  admitted: number;
}

/** "HH:MM" of the API's "Y-m-d H:i:s" (the service's time zone, as every date-time of the API). */
export const clock = (start: string) => start.slice(11, 16);

const WIDTH = 720;
const HEIGHT = 180;
const AXIS = 22;

/**
 * Admitted per five minutes as bars (decisions.md 15 "The organiser console"): inline SVG, sized and coloured by
 * attributes and classes (the console's CSP allows no inline styles), one image with a summary for screen readers;
 * the same numbers follow as a table.
 */
export function AdmissionsChart({ buckets }: { buckets: readonly Bucket[] }) {
  const t = useText(liveText);
  const max = Math.max(0, ...buckets.map((b) => b.admitted));
  const total = buckets.reduce((n, b) => n + b.admitted, 0);
  const step = WIDTH / Math.max(1, buckets.length);
  const plot = HEIGHT - AXIS;
  const label = format(t.chartLabel, {
    from: clock(buckets[0]?.start ?? ""),
    to: clock(buckets.at(-1)?.start ?? ""),
    total,
    max,
  });
  return (
    <svg class="live-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} data-total={String(total)}>
      <title>{label}</title>
      <line class="axis" x1="0" y1={String(plot)} x2={String(WIDTH)} y2={String(plot)} />
      {buckets.map((b, i) => {
        const h = max === 0 ? 0 : Math.max(b.admitted > 0 ? 2 : 0, Math.round((b.admitted / max) * (plot - 16)));
        return (
          <g>
            <rect class="bar" x={String(i * step + 2)} y={String(plot - h)} width={String(step - 4)} height={String(h)}>
              <title>{`${clock(b.start)} · ${b.admitted}`}</title>
            </rect>
            {b.admitted > 0 && (
              <text class="value" x={String(i * step + step / 2)} y={String(plot - h - 3)} text-anchor="middle">
                {String(b.admitted)}
              </text>
            )}
            {i % 6 === 0 && (
              <text class="tick" x={String(i * step + 2)} y={String(HEIGHT - 6)}>
                {clock(b.start)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
