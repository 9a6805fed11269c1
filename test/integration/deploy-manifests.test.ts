import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { CronJob } from 'kubernetes-models/batch/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/run-cli.ts';

// The Kubernetes example of deploy/kubernetes, validated against the API's own schema (Kubernetes
// 1.27, as kubernetes-models pins it): no cluster runs here, and a value of the wrong type or
// outside its allowed ones, or a required field missing, would be refused by one.
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'batch/v1/CronJob': CronJob,
};

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; spec?: Record<string, never> };

const manifests = (text = readFileSync(join(REPO, 'deploy/kubernetes/tariff.yaml'), 'utf8')): Manifest[] =>
  parseAllDocuments(text).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJSON() as Manifest;
  });

const validate = (manifest: Manifest) => {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!Model) throw new Error(`${manifest.apiVersion} ${manifest.kind} has no schema here`);
  new Model(manifest as never).validate();
};

describe('the Kubernetes example', () => {
  it('every object is valid against the Kubernetes API schema', () => {
    const all = manifests();
    expect(all.map((manifest) => manifest.kind).sort()).toEqual(
      ['ConfigMap', 'CronJob', 'Deployment', 'PersistentVolumeClaim', 'Secret', 'Secret', 'Service'].sort(),
    );
    for (const manifest of all) expect(() => validate(manifest), `${manifest.kind} ${manifest.metadata.name}`).not.toThrow();
  });

  it('the schema refuses what a cluster would: a value of the wrong type, or not one of those allowed', () => {
    const text = readFileSync(join(REPO, 'deploy/kubernetes/tariff.yaml'), 'utf8');
    const deployment = manifests(text.replace('replicas: 2', 'replicas: two')).find((manifest) => manifest.kind === 'Deployment')!;
    expect(() => validate(deployment)).toThrow(/replicas/);
    const cronJob = manifests(text.replace('concurrencyPolicy: Forbid', 'concurrencyPolicy: Never')).find((m) => m.kind === 'CronJob')!;
    expect(() => validate(cronJob)).toThrow(/concurrencyPolicy/);
  });

  it('ready on /readyz, runs as no root on a read-only root with a writable /tmp, never two release jobs at once, the signing key a file', () => {
    const all = manifests();
    const deployment = new Deployment(all.find((m) => m.kind === 'Deployment') as never);
    const pod = deployment.spec!.template.spec!;
    expect(pod.containers[0]!.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(pod.containers[0]!.imagePullPolicy).toBe('IfNotPresent');
    const tmp = pod.containers[0]!.volumeMounts!.find((mount) => mount.mountPath === '/tmp')!;
    expect(pod.volumes!.find((volume) => volume.name === tmp.name)!.emptyDir).toBeDefined();
    expect(pod.containers[0]!.livenessProbe).toBeDefined();
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    const release = new CronJob(all.find((m) => m.kind === 'CronJob' && m.metadata.name === 'tariff-release') as never);
    expect(release.spec!.concurrencyPolicy).toBe('Forbid');
    const job = release.spec!.jobTemplate.spec!.template.spec!;
    const container = job.containers[0]!;
    expect(container.args).toEqual(['release', '--quiet']);
    const key = container.env!.find((variable) => variable.name === 'TARIFF_SIGNING_KEY')!.value!;
    const mount = container.volumeMounts!.find((m) => key.startsWith(`${m.mountPath}/`))!;
    expect(job.volumes!.find((volume) => volume.name === mount.name)!.secret?.secretName).toBe('tariff-signing-key');
    // Admitted by a namespace with a LimitRange or a quota: requests and limits on every container,
    // the release's above the 400 MB no document takes a build past (docs/source-format.md).
    for (const each of [pod.containers[0]!, container]) {
      expect(each.resources?.requests?.memory, each.name).toBeDefined();
      expect(each.resources?.limits?.memory, each.name).toBeDefined();
    }
    const mebibytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)![1]);
    expect(mebibytes(String(container.resources!.limits!.memory)) * 1.048576).toBeGreaterThan(400);
  });
});
