/** A part of a task: one small write on a loopback TCP socket, each on its own turn of the event loop, as NATS and HTTP writes go out. */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { cpuPerCall, nextTurn } from './parts-cpu.js'

const FRAME = Buffer.alloc(200, 'x')
/** A peer that reads and drops everything, in a process of its own (its CPU is not counted). */
const SINK = "require('node:net').createServer((s) => s.resume()).listen(0, '127.0.0.1', function () { console.log(this.address().port) })"

/** µs of this process's CPU per write. */
export async function socketWriteCost(count: number): Promise<number> {
  const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const [line]: unknown[] = await once(sink.stdout, 'data')
    const socket = connect(Number(String(line).trim()), '127.0.0.1')
    await once(socket, 'connect')
    socket.setNoDelay(true)
    const perWrite = await cpuPerCall(count, 1, () => {
      socket.write(FRAME)
      return nextTurn()
    })
    socket.destroy()
    return perWrite
  } finally {
    sink.kill()
  }
}
