/** IPC answers every benchmark child gives: memory after a full collection (run with --expose-gc). */
export function answerMemory(extra: () => Record<string, unknown> = () => ({})): void {
  process.on('message', (m: { id?: number; cmd?: string }) => {
    if (m.cmd !== 'memory' || typeof m.id !== 'number') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) for (let i = 0; i < 3; i++) gc();
    process.send?.({ id: m.id, ...process.memoryUsage(), gc: Boolean(gc), ...extra() });
  });
}
