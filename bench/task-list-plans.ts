import type { Collection, Document } from 'mongodb'
import type { Stored } from '../projections/engine/projection.js'
import { taskListQuery, type TaskFilter } from '../projections/queries/tasks.js'
import type { TaskDoc } from '../projections/read-models/tasks.js'

export interface ListCase {
  readonly name: string
  readonly filter: TaskFilter & Record<string, string>
}

/**
 * How the store plans each list's query (its first page, as GET /v1/tasks sends it): on MongoDB
 * the winning plan's stages and index; on FerretDB whether the filter, sort and limit run in
 * SQL and SQLite's own plan. FerretDB's explain shows the plan of the query without the sort:
 * a sorted find with equalities runs patch 0005's index walk instead (ADR 0019), which its
 * explain does not show (docs/benchmarks.md has that plan from SQLite's EXPLAIN QUERY PLAN).
 */
export async function explainLists(collection: Collection<Stored<TaskDoc>>, accountId: string, cases: readonly ListCase[]): Promise<string[]> {
  const lines: string[] = []
  for (const c of cases) {
    const plan = await collection.find(taskListQuery(accountId, c.filter)).sort({ createdAt: -1, _id: -1 }).limit(25).explain()
    lines.push(`- ${c.name}: ${describe(plan)}`)
  }
  return lines
}

function describe(plan: Document): string {
  const winning = plan.queryPlanner?.winningPlan
  if (winning && !plan.queryPlanner?.Plan) return stages(winning).join(' ← ')
  const { command: _command, serverInfo: _server, ok: _ok, ...rest } = plan
  return JSON.stringify(rest)
}

/** MongoDB's plan from its root down: `LIMIT ← FETCH ← IXSCAN by_status_newest`. */
function stages(stage: Document): string[] {
  const here = stage.indexName ? `${stage.stage} ${stage.indexName}` : String(stage.stage)
  const below = stage.inputStage ?? stage.inputStages?.[0]
  return below ? [here, ...stages(below)] : [here]
}
