/**
 * At most `concurrency` tasks at once, the rest waiting in arrival order. Connection records go
 * through one: a burst of connects or disconnects (a network blip drops thousands of sockets at
 * once) waits here, where a wait has no deadline, instead of in the database pool, where waits
 * time out after `maxWait` and the record would be lost (the station shown online with no socket).
 */
export function createTurns(concurrency: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return {
    run: async <T>(task: () => Promise<T>): Promise<T> => {
      if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
      running += 1;
      try {
        return await task();
      } finally {
        release();
      }
    },
    /** tasks running and waiting */
    size: () => running + waiting.length,
  };
}
