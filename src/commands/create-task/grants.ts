/**
 * Reservations granted by this process whose TaskCreated its spend view has not applied yet,
 * by task, with their sum per spend document kept as they come and go: a check adds its
 * document's sum in one lookup. Summed over every grant at each check, an account's ticks due
 * together cost the square of their number (10,000 ticks: 50 million steps, ADR 0056).
 */
export class Grants {
  private readonly byTask = new Map<string, { readonly docId: string; readonly micros: number }>()
  private readonly byDoc = new Map<string, number>()

  add(taskId: string, docId: string, micros: number): void {
    this.remove(taskId)
    this.byTask.set(taskId, { docId, micros })
    this.byDoc.set(docId, (this.byDoc.get(docId) ?? 0) + micros)
  }

  remove(taskId: string): void {
    const grant = this.byTask.get(taskId)
    if (!grant) return
    this.byTask.delete(taskId)
    const left = (this.byDoc.get(grant.docId) ?? 0) - grant.micros
    if (left === 0) this.byDoc.delete(grant.docId)
    else this.byDoc.set(grant.docId, left)
  }

  /** The micros granted against one spend document. */
  micros(docId: string): number {
    return this.byDoc.get(docId) ?? 0
  }
}
