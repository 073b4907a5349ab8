import openapiTS, { astToString } from 'openapi-typescript'

export const OPENAPI_FILE = new URL('../docs/openapi.json', import.meta.url)
export const SCHEMA_FILE = new URL('../packages/client/src/schema.d.ts', import.meta.url)

/** The client's types for an OpenAPI document, as `npm run docs:openapi` writes them. */
export async function clientTypes(document: string): Promise<string> {
  // A field with a default is still optional to send: the server fills it in.
  const ast = await openapiTS(document, { defaultNonNullable: false })
  return `// Generated from docs/openapi.json by \`npm run docs:openapi\` (openapi-typescript); do not edit.\n\n${astToString(ast)}`
}
