export async function main(): Promise<void> {}
