// Run by the `mongo-init` service of docker-compose.yml (mongosh, as the root user) on every
// `docker compose up`; each step is skipped when already done.
//   1. initiate the one-member replica set rs0 (majority writes; add members for failover);
//   2. create (or update the password of) the `mats` user, which may only read and write the
//      `mats` database: mats connects as it (MONGODB_URL), never as root.

const REPLICA_SET = { _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] }

try {
  rs.status()
  print('replica set rs0: already initiated')
} catch (err) {
  if (err.codeName !== 'NotYetInitialized') throw err
  rs.initiate(REPLICA_SET)
  print('replica set rs0: initiated')
}

const deadline = Date.now() + 60_000
while (!db.hello().isWritablePrimary) {
  if (Date.now() > deadline) throw new Error('replica set rs0: no primary after 60 s')
  sleep(500)
}

const admin = db.getSiblingDB('admin')
const user = process.env.MONGO_MATS_USERNAME
const password = process.env.MONGO_MATS_PASSWORD
if (!user || !password) throw new Error('MONGO_MATS_USERNAME and MONGO_MATS_PASSWORD must be set')
const roles = [{ role: 'readWrite', db: 'mats' }]
if (admin.getUser(user)) {
  admin.updateUser(user, { pwd: password, roles })
  print(`user ${user}: password and roles updated`)
} else {
  admin.createUser({ user, pwd: password, roles })
  print(`user ${user}: created`)
}
