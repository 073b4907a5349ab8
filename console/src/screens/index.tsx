import type { Location } from '../router.js'
import { Agents } from './agents.js'
import { Approvals } from './approvals.js'
import { NewTask } from './new-task.js'
import { SessionDetail, Sessions } from './sessions.js'
import { TaskDetail } from './task.js'
import { Tasks } from './tasks.js'
import { Usage } from './usage.js'
import { Webhooks } from './webhooks.js'

const TASK = /^\/tasks\/([0-9a-f-]{36})$/
const SESSION = /^\/sessions\/([0-9a-f-]{36})$/

/** The screen of a path under /console. */
export function Screen(props: { location: Location }) {
  const { path, query } = props.location
  const task = TASK.exec(path)?.[1]
  if (task) return <TaskDetail key={task} id={task} />
  const session = SESSION.exec(path)?.[1]
  if (session) return <SessionDetail key={session} id={session} />
  switch (path) {
    case '/tasks':
      return <Tasks query={query} />
    case '/tasks/new':
      return <NewTask query={query} />
    case '/approvals':
      return <Approvals />
    case '/sessions':
      return <Sessions />
    case '/webhooks':
      return <Webhooks />
    case '/usage':
      return <Usage query={query} />
    case '/agents':
      return <Agents />
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>No console page at this address.</p>
        </>
      )
  }
}
