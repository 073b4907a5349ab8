/** How many months the Usage screen offers: this one and the eleven before it. */
const MONTHS = 12

/** UTC months `YYYY-MM`, this one first (GET /v1/usage bills a task to the UTC month it was created in). */
export function monthChoices(now: Date): string[] {
  const months: string[] = []
  for (let back = 0; back < MONTHS; back++) {
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1))
    months.push(at.toISOString().slice(0, 7))
  }
  return months
}
