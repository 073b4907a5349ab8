/** Where `once` keeps what it computed: a Map, or a WeakMap for object keys (an object dropped elsewhere is dropped here too). */
export interface Known<K, V> {
  get(key: K): V | undefined
  set(key: K, value: V): unknown
}

/** `compute`, once per key: the catalogue and the playbooks are static, and every run reads them. */
export function once<K, V>(compute: (key: K) => V, known: Known<K, V> = new Map<K, V>()): (key: K) => V {
  return (key) => {
    let value = known.get(key)
    if (value === undefined) {
      value = compute(key)
      known.set(key, value)
    }
    return value
  }
}
