import type { Usage } from '../types.js'
import { dollars } from './bits.js'

type Day = Usage['byDay'][number]
const WIDTH = 620
const HEIGHT = 160
const AXIS = 20

/**
 * Spend by day as bars, drawn as SVG by the app (no chart library; attributes only, since the
 * CSP allows no inline style). Its accessible name states the total and the busiest day; the
 * table after it has every number.
 */
export function DayChart(props: { days: readonly Day[] }) {
  const { days } = props
  const highest = Math.max(...days.map((d) => d.spentUsd), 0)
  const busiest = days.find((d) => d.spentUsd === highest && highest > 0)
  const total = days.reduce((sum, d) => sum + d.spentUsd, 0)
  const label = `Spend by day: ${dollars(total)} over ${days.length} days${busiest ? `, most on ${busiest.date} (${dollars(busiest.spentUsd)})` : ''}. The table below has each day.`
  const slot = WIDTH / Math.max(days.length, 1)
  const plot = HEIGHT - AXIS
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
      <line x1={0} y1={plot} x2={WIDTH} y2={plot} class="chart-axis" />
      {days.map((day, i) => {
        const height = highest > 0 ? Math.max((day.spentUsd / highest) * (plot - 4), day.spentUsd > 0 ? 1 : 0) : 0
        return (
          <g key={day.date}>
            <rect x={i * slot + slot * 0.15} y={plot - height} width={slot * 0.7} height={height} class="chart-bar" />
            {(i === 0 || i === days.length - 1 || (i + 1) % 7 === 0) && (
              <text x={i * slot + slot / 2} y={HEIGHT - 5} text-anchor="middle" class="chart-label">
                {day.date.slice(8)}
              </text>
            )}
          </g>
        )
      })}
    </svg>
  )
}
