import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

// The Kubernetes example's pods run by podman as their specs say, derived from the YAML (podman
// 4.3's `kube play` takes neither CronJobs nor Secrets): the container's image, pull policy, args,
// environment (ConfigMaps and Secrets by envFrom, then env), user and groups, read-only root,
// dropped capabilities, no new privileges, and volumes (emptyDir a tmpfs, a claim a host folder,
// a Secret its files with their mode). Nothing is written here a second time but the values a
// test must change: addresses, credentials, the port.

interface Container {
  name: string;
  image: string;
  imagePullPolicy?: string;
  args?: string[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value: string }[];
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  securityContext?: { runAsUser?: number; runAsGroup?: number; fsGroup?: number; runAsNonRoot?: boolean };
  containers: Container[];
  volumes?: {
    name: string;
    emptyDir?: object;
    persistentVolumeClaim?: { claimName: string };
    secret?: { secretName: string; defaultMode?: number };
  }[];
}
type Manifest = {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a workload's spec, read only where the kind says what it holds
  spec?: any;
};

export interface KubeExample {
  /** The pod spec of a Deployment or of a CronJob's job, by the workload's name. */
  pod(kind: 'Deployment' | 'CronJob', name: string): PodSpec;
  /** `podman run` arguments for the pod's first container (after `run`, up to and with its args). */
  podmanRun(pod: PodSpec, options: PodmanOptions): string[];
}

export interface PodmanOptions {
  /** A folder of this machine for each claim, by claim name, and where Secret volumes are written. */
  claims: Record<string, string>;
  scratch: string;
  /** Values a test must change (addresses, credentials, the port); null removes a variable. */
  env?: Record<string, string | null>;
  /** A Secret's values a test supplies (a real signing key for the example's placeholder), by Secret name. */
  secrets?: Record<string, Record<string, string>>;
  network?: string;
  name?: string;
  detach?: boolean;
}

export function kubeExample(text: string): KubeExample {
  const manifests = parseAllDocuments(text).map((doc) => doc.toJSON() as Manifest);
  const find = (kind: string, name: string) => {
    const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
    if (!found) throw new Error(`the example has no ${kind} ${name}`);
    return found;
  };
  const values = (kind: 'ConfigMap' | 'Secret', name: string) => {
    const found = find(kind, name);
    return { ...(found.data ?? {}), ...(found.stringData ?? {}) };
  };
  return {
    pod(kind, name) {
      const workload = find(kind, name);
      return kind === 'Deployment' ? workload.spec.template.spec : workload.spec.jobTemplate.spec.template.spec;
    },
    podmanRun(pod, options) {
      const container = pod.containers[0]!;
      const security = pod.securityContext ?? {};
      const args: string[] = [];
      if (options.name) args.push('--name', options.name);
      if (options.detach) args.push('-d');
      else args.push('--rm');
      if (options.network) args.push('--network', options.network);
      const pull = { IfNotPresent: 'missing', Never: 'never', Always: 'always' }[container.imagePullPolicy ?? 'Always'];
      args.push(`--pull=${pull}`);
      if (security.runAsUser !== undefined) args.push('--user', `${security.runAsUser}:${security.runAsGroup ?? security.runAsUser}`);
      if (security.fsGroup !== undefined) args.push('--group-add', String(security.fsGroup));
      const context = container.securityContext ?? {};
      // Only the spec's volumes are writable: podman's own tmpfs on /tmp (its default with --read-only) is not Kubernetes'.
      if (context.readOnlyRootFilesystem) args.push('--read-only', '--read-only-tmpfs=false');
      if (context.allowPrivilegeEscalation === false) args.push('--security-opt', 'no-new-privileges');
      for (const capability of context.capabilities?.drop ?? []) args.push(`--cap-drop=${capability}`);
      const env: Record<string, string> = {};
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef) Object.assign(env, values('ConfigMap', source.configMapRef.name));
        if (source.secretRef) Object.assign(env, values('Secret', source.secretRef.name));
      }
      for (const variable of container.env ?? []) env[variable.name] = variable.value;
      for (const [name, value] of Object.entries(options.env ?? {})) {
        if (value === null) delete env[name];
        else env[name] = value;
      }
      for (const [name, value] of Object.entries(env)) args.push('-e', `${name}=${value}`);
      for (const mount of container.volumeMounts ?? []) {
        const volume = pod.volumes?.find((v) => v.name === mount.name);
        if (!volume) throw new Error(`${container.name} mounts ${mount.name}, which the pod does not define`);
        // An emptyDir: empty, and writable by the pod's user (U: podman gives it to the container's user,
        // as the kubelet does through fsGroup; the image's own content at a VOLUME path is not copied up).
        if (volume.emptyDir) args.push('--tmpfs', `${mount.mountPath}:rw,mode=1777,notmpcopyup,U`);
        else if (volume.persistentVolumeClaim) {
          const folder = options.claims[volume.persistentVolumeClaim.claimName];
          if (!folder) throw new Error(`no folder given for the claim ${volume.persistentVolumeClaim.claimName}`);
          args.push('-v', `${folder}:${mount.mountPath}${mount.readOnly ? ':ro' : ''}`);
        } else if (volume.secret) {
          // As the kubelet writes it: each key a file of defaultMode, the pod's group its group.
          const folder = join(options.scratch, `secret-${volume.name}`);
          mkdirSync(folder, { recursive: true });
          const secret = { ...values('Secret', volume.secret.secretName), ...options.secrets?.[volume.secret.secretName] };
          for (const [key, value] of Object.entries(secret)) {
            const file = join(folder, key);
            writeFileSync(file, value);
            chownSync(file, security.runAsUser ?? 0, security.fsGroup ?? 0);
            chmodSync(file, volume.secret.defaultMode ?? 0o644);
          }
          args.push('-v', `${folder}:${mount.mountPath}:ro`);
        } else throw new Error(`${mount.name}: a kind of volume this helper does not know`);
      }
      args.push(container.image, ...(container.args ?? []));
      return args;
    },
  };
}
