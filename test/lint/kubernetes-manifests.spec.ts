import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type AppName, appOf, envProblems, read, servedPort, servedProbePaths } from './deployment-apps';
import { REPO_ROOT } from './repo-tree';

// deploy/kubernetes/ cannot be applied where the suite runs (no cluster): this parses every manifest and checks the
// shapes a cluster would refuse or that would fail at run time — references between objects, probes against what the
// apps serve, every variable against the app's config schema.

type Labels = Record<string, string>;
interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: { cpu?: string; memory?: string } };
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Labels };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Labels } & Labels;
    template?: { metadata: { labels: Labels }; spec: { containers: Container[]; initContainers?: Container[] } };
    ports?: { name: string; port: number; targetPort: string | number }[];
    scaleTargetRef?: { apiVersion: string; kind: string; name: string };
    minReplicas?: number;
    minAvailable?: number;
    maxUnavailable?: number;
  };
}

const DIR = 'deploy/kubernetes';
const API_VERSIONS: Record<string, string> = {
  Namespace: 'v1',
  ConfigMap: 'v1',
  Secret: 'v1',
  Service: 'v1',
  Deployment: 'apps/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  PodDisruptionBudget: 'policy/v1',
};

const yamlFiles = readdirSync(path.join(REPO_ROOT, DIR)).filter((f) => f.endsWith('.yaml')).sort();
const kustomization = parseAllDocuments(read(`${DIR}/kustomization.yaml`))[0]!.toJS() as { resources: string[]; images: { name: string }[] };
const manifests = kustomization.resources.flatMap((file) => parseAllDocuments(read(`${DIR}/${file}`)).map((doc) => doc.toJS() as Manifest));
const of = (kind: string) => manifests.filter((m) => m.kind === kind);
const named = (kind: string, name: string) => of(kind).find((m) => m.metadata.name === name);
const matches = (selector: Labels, labels: Labels) => Object.entries(selector).every(([k, v]) => labels[k] === v);

/** A container's environment as it starts: its ConfigMaps' data, then its own `env` (a Secret's value where it names one). */
function envOf(container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    const object = source.configMapRef ? named('ConfigMap', ref!.name) : named('Secret', ref!.name);
    Object.assign(env, object?.data ?? {}, object?.stringData ?? {});
  }
  for (const { name, value, valueFrom } of container.env ?? []) {
    const secret = valueFrom?.secretKeyRef;
    const config = valueFrom?.configMapKeyRef;
    env[name] = value ?? (secret ? named('Secret', secret.name)?.stringData?.[secret.key] : config ? named('ConfigMap', config.name)?.data?.[config.key] : undefined) ?? '';
  }
  return env;
}

/** Every container of every Deployment, with the app it runs. */
const containers = of('Deployment').flatMap((d) =>
  [...(d.spec!.template!.spec.initContainers ?? []), ...d.spec!.template!.spec.containers].map((c) => ({ deployment: d, container: c, app: appOf(c.image, c.command) })),
);
const deploymentOf = (app: AppName) => containers.find((c) => c.app === app)!.deployment;
const containerOf = (app: AppName) => containers.find((c) => c.app === app)!.container;

/** A probe's or Service's port (a name or a number) as the container's port number. */
function portNumber(container: Container, port: string | number | undefined): number | undefined {
  return typeof port === 'number' ? port : container.ports?.find((p) => p.name === port)?.containerPort;
}

/** References to ConfigMaps, Secrets or their keys that no manifest defines. */
function missingReferences(): string[] {
  return containers.flatMap(({ container }) => [
    ...(container.envFrom ?? []).flatMap((s) =>
      s.configMapRef && !named('ConfigMap', s.configMapRef.name) ? [`${container.name}: ConfigMap ${s.configMapRef.name}`] : s.secretRef && !named('Secret', s.secretRef.name) ? [`${container.name}: Secret ${s.secretRef.name}`] : [],
    ),
    ...(container.env ?? []).flatMap(({ valueFrom }) => {
      const ref = valueFrom?.secretKeyRef;
      return ref && named('Secret', ref.name)?.stringData?.[ref.key] === undefined ? [`${container.name}: Secret ${ref.name} key ${ref.key}`] : [];
    }),
  ]);
}

describe(DIR, () => {
  it('says it was not applied where it was written', () => {
    for (const file of yamlFiles) expect(read(`${DIR}/${file}`), file).toMatch(/NOT RUN HERE/);
    expect(read(`${DIR}/README.md`)).toMatch(/not been applied/);
  });

  it('lists every manifest of the folder in kustomization.yaml, and the images of every app there', () => {
    expect([...kustomization.resources].sort()).toEqual(yamlFiles.filter((f) => f !== 'kustomization.yaml'));
    expect(kustomization.images.map((i) => i.name).sort()).toEqual(['tollgate/api', 'tollgate/dashboard', 'tollgate/worker']);
  });

  it('holds objects of the kinds and API versions a current cluster serves, each named', () => {
    for (const m of manifests) {
      expect(API_VERSIONS[m.kind], m.kind).toBe(m.apiVersion);
      expect(m.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    }
    expect(new Set(manifests.map((m) => `${m.kind}/${m.metadata.name}`)).size).toBe(manifests.length);
  });

  it('runs the API, the worker and the dashboard in Deployments whose selectors match their pods, the migrations before the API', () => {
    for (const app of ['api', 'worker', 'dashboard'] as const) {
      const d = deploymentOf(app);
      expect(matches(d.spec!.selector!.matchLabels!, d.spec!.template!.metadata.labels), app).toBe(true);
    }
    expect(deploymentOf('migrate')).toBe(deploymentOf('api'));
    expect(deploymentOf('api').spec!.template!.spec.initContainers?.map((c) => appOf(c.image, c.command))).toEqual(['migrate']);
  });

  it('gives each container only variables its app reads, every one it needs, and values its schema takes', () => {
    expect(missingReferences()).toEqual([]);
    for (const { container, app } of containers) {
      expect(app, container.name).not.toBeNull();
      expect(envProblems(app!, envOf(container)), container.name).toEqual([]);
    }
  });

  it('probes what the apps serve: /health/ready of the API (readiness), /health of the worker, the dashboard sign-in page', () => {
    const served = servedProbePaths();
    const expected = { api: served.api.find((p) => p === '/health/ready'), worker: served.worker[0], dashboard: served.dashboard[0] };
    for (const app of ['api', 'worker', 'dashboard'] as const) {
      const container = containerOf(app);
      const port = servedPort(app, envOf(container));
      const readiness = container.readinessProbe?.httpGet;
      expect(readiness?.path, app).toBe(expected[app]);
      expect(portNumber(container, readiness?.port), app).toBe(port);
      const liveness = container.livenessProbe!;
      expect(portNumber(container, (liveness.httpGet ?? liveness.tcpSocket)?.port), app).toBe(port);
      if (app !== 'api') expect(liveness.httpGet?.path, app).toBe(expected[app]);
    }
    // The API's liveness is the socket alone, and its readiness not /health: that is 503 while Redis is away, when it
    // still decides checks.
    expect(containerOf('api').livenessProbe?.tcpSocket).toBeDefined();
  });

  it('routes each Service to the pods of one Deployment, at a port their container opens; the dashboard reaches the API through its Service', () => {
    for (const service of of('Service')) {
      const targets = of('Deployment').filter((d) => matches(service.spec!.selector as Labels, d.spec!.template!.metadata.labels));
      expect(targets, service.metadata.name).toHaveLength(1);
      const container = targets[0]!.spec!.template!.spec.containers[0]!;
      for (const port of service.spec!.ports!) expect(portNumber(container, port.targetPort), service.metadata.name).toBeDefined();
    }
    const apiUrl = new URL(envOf(containerOf('dashboard')).TOLLGATE_API_URL!);
    const apiService = of('Service').find((s) => s.metadata.name === apiUrl.hostname);
    expect(apiService && matches(apiService.spec!.selector as Labels, deploymentOf('api').spec!.template!.metadata.labels)).toBe(true);
    expect(apiService!.spec!.ports!.map((p) => p.port)).toContain(Number(apiUrl.port));
  });

  it('scales the API on CPU from a CPU request, and keeps pods of each app through a voluntary disruption', () => {
    const [hpa] = of('HorizontalPodAutoscaler');
    expect(hpa?.spec?.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deploymentOf('api').metadata.name });
    expect(hpa!.spec!.minReplicas).toBeGreaterThanOrEqual(2);
    expect(containerOf('api').resources?.requests?.cpu).toBeTruthy();
    for (const app of ['api', 'worker', 'dashboard'] as const) {
      const d = deploymentOf(app);
      const pdbs = of('PodDisruptionBudget').filter((p) => matches(p.spec!.selector!.matchLabels!, d.spec!.template!.metadata.labels));
      expect(pdbs, app).toHaveLength(1);
      const { minAvailable, maxUnavailable } = pdbs[0]!.spec!;
      // A budget that allows no eviction blocks every node drain.
      if (minAvailable !== undefined) expect(minAvailable, app).toBeLessThan(Math.min(d.spec!.replicas!, app === 'api' ? hpa!.spec!.minReplicas! : Infinity));
      else expect(maxUnavailable, app).toBeGreaterThanOrEqual(1);
    }
  });
});
