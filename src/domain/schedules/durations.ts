/** A duration as schedules take it: a positive whole number and a unit, `90s`, `15m`, `1h`, `1d`. */
export const DURATION_PATTERN = '^[1-9][0-9]*[smhd]$'

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/** Milliseconds of `90s`, `15m`, `1h` or `1d`; null for anything else. */
export function durationMs(duration: string): number | null {
  const match = /^([1-9][0-9]{0,8})([smhd])$/u.exec(duration)
  if (!match?.[1] || !match[2]) return null
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]
}
