/** Who a request comes from, once its API key is checked: the same for REST and MCP. */
export interface Principal {
  readonly accountId: string
  readonly keyId: string
}
