// Shared by the Node servers: port/host from the environment, clean exit on SIGTERM/SIGINT
// (so `node --cpu-prof` writes its profile when the orchestrator stops the server).
export function listenInfo() {
  return { port: Number(process.env.PORT || 3000), hostname: process.env.HOST || '127.0.0.1' };
}

export function onShutdown(close) {
  const stop = () => {
    try {
      close?.();
    } catch {}
    // Do not wait for keep-alive sockets: exit now, normally (profiles and coverage get written).
    setImmediate(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
