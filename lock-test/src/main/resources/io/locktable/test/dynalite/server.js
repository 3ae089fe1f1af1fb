// Starts dynalite in memory for LockTable tests: node server.js <port> <host>
// It stops when its standard input ends: the JVM that started it holds that pipe open, so dynalite dies with the
// JVM even when the JVM is killed.
// dynalite throws from a request's 'error' handler when a client drops a connection mid-request
// (a killed process, a client-side timeout), which would end the whole server: log such errors instead.
'use strict'
const dynalite = require('dynalite')

const port = Number(process.argv[2])
const host = process.argv[3] || '127.0.0.1'

process.on('uncaughtException', (err) => {
  if (err && (err.code === 'ECONNRESET' || err.message === 'aborted')) {
    console.error('dynalite: a client dropped its connection mid-request (ignored)')
    return
  }
  console.error(err)
  process.exit(1)
})

dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }).listen(port, host, (err) => {
  if (err) throw err
  console.log('Dynalite listening at: http://' + host + ':' + port)
})

process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
