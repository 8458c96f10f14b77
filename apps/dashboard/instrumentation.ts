/** Runs once when the server starts; NEXT_RUNTIME is Next's own build-time switch, not configuration. */
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') await import('./instrumentation-node');
}
