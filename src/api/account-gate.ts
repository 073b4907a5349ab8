/**
 * At most `perAccount` of one account's calls run at once in this process; the account's
 * others wait their turn, first come first served, while other accounts' calls go straight on
 * (invariant 12). Made for task lists: four clients listing a 100,000-task account back to back
 * otherwise hold the store and the event loop four requests deep, and a small account's list
 * waits behind all of them (bench:console).
 */
export class AccountGate {
  private readonly accounts = new Map<string, { running: number; waiting: (() => void)[] }>()

  constructor(private readonly perAccount: number) {}

  async run<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const account = this.accounts.get(accountId) ?? { running: 0, waiting: [] }
    this.accounts.set(accountId, account)
    if (account.running >= this.perAccount) await new Promise<void>((turn) => account.waiting.push(turn))
    else account.running++
    try {
      return await work()
    } finally {
      // The slot passes straight to the next in line (running stays), or is given back.
      const next = account.waiting.shift()
      if (next) next()
      else if (--account.running === 0) this.accounts.delete(accountId)
    }
  }
}
