import path from 'node:path';
import type { NextConfig } from 'next';

// The monorepo root holds the only lockfile; pointing Next at it keeps tracing and Turbopack from guessing.
const repoRoot = path.resolve(__dirname, '../..');

const nextConfig: NextConfig = {
  poweredByHeader: false,
  turbopack: { root: repoRoot },
  outputFileTracingRoot: repoRoot,
};

export default nextConfig;
