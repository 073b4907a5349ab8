/** A part of a task: one small write on a loopback TCP socket, each on its own turn of the event loop, as NATS and HTTP writes go out. */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'

const FRAME = Buffer.alloc(200, 'x')
/** A peer that reads and drops everything, in a process of its own (its CPU is not counted). */
const SINK = "require('node:net').createServer((s) => s.resume()).listen(0, '127.0.0.1', function () { console.log(this.address().port) })"

/** µs of this process's CPU per write. */
export async function socketWriteCost(count: number): Promise<number> {
  const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const [line] = (await once(sink.stdout, 'data')) as [Buffer]
    const socket = connect(Number(String(line).trim()), '127.0.0.1')
    await once(socket, 'connect')
    socket.setNoDelay(true)
    const started = process.cpuUsage()
    for (let i = 0; i < count; i++) {
      socket.write(FRAME)
      await new Promise((resolve) => setImmediate(resolve))
    }
    const used = process.cpuUsage(started)
    socket.destroy()
    return (used.user + used.system) / count
  } finally {
    sink.kill()
  }
}
