/**
 * Just enough YAML to write JSON Schema into docs/asyncapi.yaml: block mappings and
 * sequences, flow sequences of scalars, and strings plain when YAML reads them back as
 * the same string, else double-quoted (a JSON string is a valid YAML one).
 */
export function toYaml(value: unknown, indent: number): string[] {
  const pad = ' '.repeat(indent)
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return [`${pad}[${value.map(scalar).join(', ')}]`]
    return value.flatMap((item) => {
      const [first = '', ...rest] = toYaml(item, indent + 2)
      return [`${pad}- ${first.trimStart()}`, ...rest]
    })
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined)
    if (entries.length === 0) return [`${pad}{}`]
    return entries.flatMap(([key, v]) => {
      if (isScalar(v) || (Array.isArray(v) && v.every(isScalar)) || (isRecord(v) && Object.keys(v).length === 0)) {
        return [`${pad}${key}: ${toYaml(v, 0)[0]}`]
      }
      return [`${pad}${key}:`, ...toYaml(v, indent + 2)]
    })
  }
  return [`${pad}${scalar(value)}`]
}

const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i

function scalar(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value)
  const plain = /^[A-Za-z][A-Za-z0-9_./-]*$/.test(value) && !RESERVED.test(value)
  return plain ? value : JSON.stringify(value)
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
