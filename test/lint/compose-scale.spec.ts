import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type AppName, appOf, clusterHosts, envProblems, read, servedPort, servedProbePaths } from './deployment-apps';
import { REPO_ROOT } from './repo-tree';

// docker/compose.scale.yml cannot be started where the suite runs (no container engine): this reads it as Compose
// would (YAML merge keys, `${VAR:-default}` interpolated to its default) and checks what a start would trip on.

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  healthcheck?: { test: string | string[] };
  depends_on?: Record<string, { condition: string }> | string[];
  ports?: string[];
  volumes?: string[];
  restart?: string;
  networks?: Record<string, { ipv4_address?: string } | null>;
}

interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { ipam?: { config?: { subnet: string; ip_range?: string }[] } }>;
}

const FILE = 'docker/compose.scale.yml';
const DIR = path.posix.dirname(FILE);

/** Compose's interpolation with nothing set: `${X:-d}` and `${X-d}` give `d`, `${X}` gives '', `$$` is a `$`. */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (match, _name, fallback: string | undefined) => (match === '$$' ? '$' : (fallback ?? '')));
}

function load(text: string): Compose {
  return parse(text, { merge: true }) as Compose;
}

/** A service's environment as strings, interpolated. */
function envOf(service: Service): Record<string, string> {
  const entries = Array.isArray(service.environment)
    ? service.environment.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const)
    : Object.entries(service.environment ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)] as const);
  return Object.fromEntries(entries.map(([k, v]) => [k, interpolate(v)]));
}

/** Whether IPv4 `address` is inside `cidr`. */
function inCidr(address: string, cidr: string): boolean {
  const toInt = (ip: string) => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toInt(address) / size) === Math.floor(toInt(base!) / size);
}

/** The `host:port` of each `server` in nginx's upstream block `name`. */
function upstreamServers(config: string, name: string): string[] {
  const block = new RegExp(`upstream ${name} \\{([^}]*)\\}`).exec(config)?.[1] ?? '';
  return [...block.matchAll(/^\s*server ([\w-]+):(\d+)\b/gm)].map((m) => `${m[1]}:${m[2]}`);
}

const commandText = (service: Service) => (Array.isArray(service.command) ? service.command.join(' ') : (service.command ?? ''));
const healthText = (service: Service) => [service.healthcheck?.test ?? []].flat().join(' ');

/** The services of each app, and the Redis Cluster's nodes. */
function byRole(compose: Compose) {
  const apps: Record<AppName, string[]> = { api: [], worker: [], dashboard: [], migrate: [] };
  const redisNodes: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    const app = appOf(service.image, service.command);
    if (app) apps[app].push(name);
    if (service.image?.startsWith('redis:') && commandText(service).includes('--cluster-enabled yes')) redisNodes.push(name);
  }
  return { apps, redisNodes };
}

/** depends_on entries whose condition Compose does not know, whose target is missing, or cannot meet the condition. */
function dependencyProblems(compose: Compose): string[] {
  return Object.entries(compose.services).flatMap(([name, service]) => {
    if (Array.isArray(service.depends_on)) return [`${name}: depends_on without conditions`];
    return Object.entries(service.depends_on ?? {}).flatMap(([target, { condition }]) => {
      const other = compose.services[target];
      if (!other) return [`${name} → ${target}: no such service`];
      if (condition === 'service_healthy' && !other.healthcheck) return [`${name} → ${target}: service_healthy, but it has no healthcheck`];
      if (condition === 'service_completed_successfully' && other.restart !== 'no') return [`${name} → ${target}: waits for it to exit, but it restarts`];
      if (!['service_started', 'service_healthy', 'service_completed_successfully'].includes(condition)) return [`${name} → ${target}: unknown condition ${condition}`];
      return [];
    });
  });
}

const compose = load(read(FILE));
const { apps, redisNodes } = byRole(compose);
const service = (name: string) => compose.services[name]!;

describe(FILE, () => {
  it('says it was not run where it was written', () => {
    expect(read(FILE)).toMatch(/NOT RUN HERE/);
    expect(read('docker/README.md')).toMatch(/compose\.scale\.yml[\s\S]*not been run|not been run[\s\S]*compose\.scale\.yml/);
  });

  it('runs three API nodes, two workers, the dashboard, the migrations once, PostgreSQL and six Redis Cluster nodes', () => {
    expect(apps.api).toHaveLength(3);
    expect(apps.worker).toHaveLength(2);
    expect(apps.dashboard).toHaveLength(1);
    expect(apps.migrate).toHaveLength(1);
    expect(redisNodes).toHaveLength(6);
    expect(Object.values(compose.services).filter((s) => s.image?.startsWith('postgres:'))).toHaveLength(1);
  });

  it('forms the cluster once, from every node, three primaries with a replica each, before the API and the workers start', () => {
    const create = Object.entries(compose.services).find(([, s]) => commandText(s).includes('--cluster create'));
    expect(create).toBeDefined();
    const [name, creator] = create!;
    const seeds = /--cluster create ([^\n]*?) --cluster-replicas (\d+)/.exec(commandText(creator));
    expect(seeds?.[1]?.split(' ').sort()).toEqual(redisNodes.map((n) => `${n}:6379`).sort());
    expect(seeds?.[2]).toBe('1');
    expect(creator.restart).toBe('no');
    for (const node of redisNodes) {
      expect(commandText(service(node))).toContain(`--cluster-announce-hostname ${node}`);
      expect(commandText(service(node))).toContain('--maxmemory-policy noeviction');
    }
    // The nodes reach each other on the addresses in their nodes.conf: fixed, distinct, outside Docker's dynamic range.
    const [ipam] = compose.networks?.default?.ipam?.config ?? [];
    const addresses = redisNodes.map((node) => service(node).networks?.default?.ipv4_address ?? '');
    expect(new Set(addresses).size).toBe(redisNodes.length);
    for (const address of addresses) {
      expect(inCidr(address, ipam!.subnet), address).toBe(true);
      expect(inCidr(address, ipam!.ip_range!), address).toBe(false);
    }
    for (const server of [...apps.api, ...apps.worker]) {
      expect(service(server).depends_on).toMatchObject({ [name]: { condition: 'service_completed_successfully' }, [apps.migrate[0]!]: { condition: 'service_completed_successfully' } });
    }
  });

  it('names an image for every service, and a Dockerfile that exists for every build, from the repository root', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      expect(s.image, name).toBeTruthy();
      if (!s.build) continue;
      expect(path.posix.normalize(path.posix.join(DIR, s.build.context)), name).toBe('.');
      expect(existsSync(path.join(REPO_ROOT, s.build.dockerfile)), `${name}: ${s.build.dockerfile}`).toBe(true);
    }
  });

  it('gives each app only variables it reads, every one it needs in a container, and values its schema takes', () => {
    for (const [app, names] of Object.entries(apps) as [AppName, string[]][]) {
      for (const name of names) expect(envProblems(app, envOf(service(name))), name).toEqual([]);
    }
  });

  it('points every app at the services of this file: PostgreSQL, every cluster node, the load balancer', () => {
    const postgres = Object.keys(compose.services).find((n) => service(n).image?.startsWith('postgres:'));
    for (const name of [...apps.api, ...apps.worker, ...apps.migrate]) expect(new URL(envOf(service(name)).DATABASE_URL!).hostname, name).toBe(postgres);
    for (const name of [...apps.api, ...apps.worker]) expect(clusterHosts(envOf(service(name)).REDIS_CLUSTER_NODES!).sort(), name).toEqual([...redisNodes].sort());
    const apiUrl = new URL(envOf(service(apps.dashboard[0]!)).TOLLGATE_API_URL!);
    expect(Object.keys(compose.services)).toContain(apiUrl.hostname);
    const secrets = [...apps.api, ...apps.dashboard].map((name) => envOf(service(name)).CLIENT_ADDRESS_SECRET);
    expect(new Set(secrets).size).toBe(1);
  });

  it('checks health where the apps serve it: GET /health on the API port and on the worker health port', () => {
    const served = servedProbePaths();
    expect(served.api).toContain('/health');
    expect(served.worker).toEqual(['/health']);
    for (const [app, names] of [['api', apps.api], ['worker', apps.worker]] as const) {
      for (const name of names) expect(healthText(service(name)), name).toContain(`http://127.0.0.1:${servedPort(app, envOf(service(name)))}/health`);
    }
  });

  it('balances over every API node at its port, and over their gRPC listeners, on the ports it publishes', () => {
    const lb = Object.entries(compose.services).find(([, s]) => s.image?.startsWith('nginx:'));
    expect(lb).toBeDefined();
    const [lbName, balancer] = lb!;
    const mount = balancer.volumes?.map((v) => v.split(':')).find(([, target]) => target === '/etc/nginx/nginx.conf');
    const config = read(path.posix.join(DIR, mount![0]!));
    expect(upstreamServers(config, 'tollgate_api').sort()).toEqual(apps.api.map((name) => `${name}:${servedPort('api', envOf(service(name)))}`).sort());
    const listen = /^\s*listen (\d+);/m.exec(config)?.[1];
    expect(balancer.ports?.map((p) => p.split(':').at(-1))).toContain(listen);
    expect(new URL(envOf(service(apps.dashboard[0]!)).TOLLGATE_API_URL!).host).toBe(`${lbName}:${listen}`);
    // Envoy's rate limit service: every node's gRPC listener, behind a port of its own that grpc_passes to them.
    expect(upstreamServers(config, 'tollgate_rls').sort()).toEqual(apps.api.map((name) => `${name}:${envOf(service(name)).GRPC_PORT}`).sort());
    const grpcServer = /server \{\s*listen (\d+);\s*http2 on;[\s\S]*?grpc_pass grpc:\/\/tollgate_rls;/.exec(config);
    expect(grpcServer).not.toBeNull();
    expect(balancer.ports?.map((p) => p.split(':').at(-1))).toContain(grpcServer![1]);
    for (const name of apps.api) expect(balancer.depends_on).toMatchObject({ [name]: { condition: 'service_healthy' } });
  });

  it('waits on conditions each service can meet', () => {
    expect(dependencyProblems(compose)).toEqual([]);
  });

  it('publishes ports on 127.0.0.1 only, the dashboard on the port it listens on', () => {
    for (const [name, s] of Object.entries(compose.services)) for (const port of s.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    const dashboard = service(apps.dashboard[0]!);
    expect(dashboard.ports?.map((p) => Number(p.split(':').at(-1)))).toEqual([servedPort('dashboard', envOf(dashboard))]);
  });

  it('declares every named volume it mounts, and every file it mounts exists', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      for (const volume of s.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.')) expect(existsSync(path.join(REPO_ROOT, DIR, source)), `${name}: ${source}`).toBe(true);
        else expect(Object.keys(compose.volumes ?? {}), name).toContain(source);
      }
    }
  });
});

describe('the compose checks, on samples', () => {
  it('interpolate defaults and escaped dollars', () => {
    expect(interpolate('a${X:-b}c${Y}d${Z-e}$$(seq)')).toBe('abcde$(seq)');
  });

  it('place addresses in or out of a range', () => {
    expect(inCidr('172.30.77.201', '172.30.77.0/24')).toBe(true);
    expect(inCidr('172.30.77.201', '172.30.77.0/25')).toBe(false);
    expect(inCidr('172.30.77.127', '172.30.77.0/25')).toBe(true);
    expect(inCidr('172.30.78.1', '172.30.77.0/24')).toBe(false);
  });

  it('find a variable the app does not read, a required one missing, a value refused', () => {
    expect(envProblems('dashboard', { TOLLGATE_API_URL: 'http://lb:3000', CLIENT_ADDRESS_SECRET: 'x'.repeat(32), REDIS_URL: 'redis://r:6379' })).toEqual([
      'REDIS_URL: not read by the dashboard',
    ]);
    expect(envProblems('dashboard', { TOLLGATE_API_URL: 'http://lb:3000' })).toContain('CLIENT_ADDRESS_SECRET: required in a container, not set');
    const worker = { DATABASE_URL: 'postgresql://p/t', REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'r:6379', QUEUE_PREFIX: 'tollgate' };
    expect(envProblems('worker', worker).join('\n')).toMatch(/QUEUE_PREFIX: must hold a hash tag/);
  });

  it('find a dependency on a service without a healthcheck, or on one that restarts', () => {
    const sample = load(`
services:
  a: { image: x, depends_on: { b: { condition: service_healthy }, c: { condition: service_completed_successfully }, d: { condition: service_started } } }
  b: { image: x }
  c: { image: x, restart: unless-stopped }
`);
    expect(dependencyProblems(sample)).toEqual(['a → b: service_healthy, but it has no healthcheck', 'a → c: waits for it to exit, but it restarts', 'a → d: no such service']);
  });
});
