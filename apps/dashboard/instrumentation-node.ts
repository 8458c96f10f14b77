/**
 * A bad environment stops the server at start, naming every bad key, instead of surfacing as a 500 on the
 * first request.
 */
try {
  await import('./lib/config');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

export {};
