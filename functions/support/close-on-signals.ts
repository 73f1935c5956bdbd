/** Graceful stop for the Node servers: SIGINT/SIGTERM close the server (flushing the data file), then exit. */
export function closeOnSignals(server: { close(): Promise<void> }): void {
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
